"""Reference search components for PrOntoQA, written by hand (veriplan). Run
exactly like model-written code. A state is a set of facts; a rule (x, y)
means "if x then y"."""


def succ(state, rules):
    """One new fact from one applicable rule, per successor."""
    out = []
    for x, y in rules:
        if x in state and y not in state:
            out.append(state | {y})
    return out


def goal(state, target):
    return target in state
