import CKissFFT
func _probe() -> Int { MemoryLayout<kiss_fft_cpx>.size }
