"""Reference search components for the 24 Game, written by hand (veriplan).
Run exactly like model-written code: each function is self-contained."""


def succ(state):
    """Every state reached by replacing two numbers with the result of one of
    + - * / applied to them (either order; no division by zero)."""
    out = []
    n = len(state)
    for i in range(n):
        a = state[i]
        for j in range(i + 1, n):
            b = state[j]
            rest = state[:i] + state[i + 1:j] + state[j + 1:]
            values = {a + b, a * b, a - b, b - a}
            if b != 0:
                values.add(a / b)
            if a != 0:
                values.add(b / a)
            for v in values:
                out.append(rest + [v])
    return out


def goal(state):
    return len(state) == 1 and abs(state[0] - 24) < 1e-6
