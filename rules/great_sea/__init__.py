"""The Great Sea on the rules core: one module per rulebook section (docs/great-sea.md)."""
