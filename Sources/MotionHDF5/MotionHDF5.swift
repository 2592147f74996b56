import CHDF5
func _probe() -> Int64 { Int64(CHDF5_H5P_DEFAULT()) }
