"""Reference search components for Blocksworld on the AutoToS dict states,
written by hand (veriplan). Run exactly like model-written code."""


def succ(state):
    """States after one of pick-up, put-down, stack, unstack."""
    out = []
    clear, table, on = state["clear"], state["on-table"], state["on"]
    if state["arm-empty"]:
        for x in clear:
            if x in table:  # pick-up x
                out.append({"clear": [b for b in clear if b != x],
                            "on-table": [b for b in table if b != x],
                            "arm-empty": False, "holding": x, "on": [list(p) for p in on]})
            else:  # unstack x from the block under it
                for a, b in on:
                    if a == x:
                        out.append({"clear": [c for c in clear if c != x] + [b],
                                    "on-table": list(table), "arm-empty": False,
                                    "holding": x,
                                    "on": [list(p) for p in on if p[0] != x]})
    else:
        x = state["holding"]
        out.append({"clear": list(clear) + [x], "on-table": list(table) + [x],
                    "arm-empty": True, "holding": None, "on": [list(p) for p in on]})
        for y in clear:  # stack x on y
            out.append({"clear": [c for c in clear if c != y] + [x], "on-table": list(table),
                        "arm-empty": True, "holding": None,
                        "on": [list(p) for p in on] + [[x, y]]})
    return out


def goal(state, goal):
    """Every fact of the (partial) goal holds."""
    on = {tuple(p) for p in state["on"]}
    return (all(tuple(p) in on for p in goal.get("on", []))
            and all(b in state["clear"] for b in goal.get("clear", []))
            and all(b in state["on-table"] for b in goal.get("on-table", [])))
