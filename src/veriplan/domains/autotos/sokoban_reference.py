"""Reference search components for Sokoban, written by hand (veriplan). Run
exactly like model-written code."""


def succ(state, grid):
    """The player steps up, down, left or right into a free cell, or pushes the
    stone there one cell further when that cell is free."""
    r, c = state["at-player"]
    stones = {tuple(s) for s in state["at-stone"]}
    rows, cols = len(grid), len(grid[0])

    def free(a, b):
        return 0 <= a < rows and 0 <= b < cols and grid[a][b] != 1 and (a, b) not in stones

    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        a, b = r + dr, c + dc
        if (a, b) in stones:
            if free(a + dr, b + dc):
                moved = [[x, y] if (x, y) != (a, b) else [a + dr, b + dc]
                         for x, y in state["at-stone"]]
                out.append({"at-player": [a, b], "at-stone": moved})
        elif free(a, b):
            out.append({"at-player": [a, b], "at-stone": [list(s) for s in state["at-stone"]]})
    return out


def goal(state, grid):
    """Every stone is on a goal cell."""
    return all(grid[r][c] == 2 for r, c in state["at-stone"])
