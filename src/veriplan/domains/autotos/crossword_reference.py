"""Reference search components for 5x5 mini crosswords, written by hand
(veriplan). Run exactly like model-written code."""


def succ(state, horizontal_answers, vertical_answers):
    """Fill one row or one column with a 5-letter candidate that agrees with the
    letters already there and adds at least one letter."""
    out = []
    for i in range(5):
        row = state[i]
        for word in horizontal_answers[i]:
            if len(word) != 5:
                continue
            new = False
            for j in range(5):
                cell = row[j]
                if cell is None:
                    new = True
                elif cell != word[j]:
                    break
            else:
                if new:
                    grid = [list(r) for r in state]
                    grid[i] = list(word)
                    out.append(grid)
    for j in range(5):
        for word in vertical_answers[j]:
            if len(word) != 5:
                continue
            new = False
            for i in range(5):
                cell = state[i][j]
                if cell is None:
                    new = True
                elif cell != word[i]:
                    break
            else:
                if new:
                    grid = [list(r) for r in state]
                    for i in range(5):
                        grid[i][j] = word[i]
                    out.append(grid)
    return out


def goal(state, horizontal_answers, vertical_answers):
    """Every cell filled, every row and every column one of its candidates."""
    for i in range(5):
        if any(c is None for c in state[i]) or "".join(state[i]) not in horizontal_answers[i]:
            return False
    return all("".join(state[i][j] for i in range(5)) in vertical_answers[j] for j in range(5))
