import CZstd
func _probe() -> Int { ZSTD_compressBound(10) }
