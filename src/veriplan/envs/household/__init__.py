"""ALFWorld-style household games, generated here from the ``alfworld`` wheel's
PDDL domain, text grammar and room layouts (the original games are never
fetched), proven solvable by Fast Downward, and played with TextWorld."""
