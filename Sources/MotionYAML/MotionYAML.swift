import CYAML
func _probe() -> Int { MemoryLayout<yaml_parser_t>.size }
