"""Problem domains shared by methods: Blocksworld action spaces (words and
PDDL) now; the AutoToS search domains and environment adapters later."""
