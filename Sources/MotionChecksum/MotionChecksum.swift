import CCrypto
func _probe() -> Any? { EVP_sha256() }
