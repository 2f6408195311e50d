"""TextWorld's PDDL engine behind a line protocol (JSON in, JSON out).

Run with the Python of the TextWorld environment, not veriplan's: TextWorld's
Fast Downward build and the one veriplan's planners use install files under
the same package name (``fast_downward``) with incompatible translators, so
each lives in its own environment. This file imports nothing from veriplan.
"""

import json
import sys


def _state_dict(st, env):
    pairs = [[cmd, action.name, [v.name for v in action.mapping.values()]]
             for cmd, action in zip(st["_valid_commands"], st["_valid_actions"])]
    return {"feedback": st.feedback, "admissible": list(st["admissible_commands"]),
            "facts": [[f.name, [a.name for a in f.arguments]] for f in st["_facts"]],
            "won": bool(st["won"]), "actions": pairs}


def main():
    import textworld
    from textworld.envs.pddl import PddlEnv

    env = None
    infos = textworld.EnvInfos(admissible_commands=True, facts=True, won=True)
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["op"] == "load":
                env = PddlEnv(infos)
                env.load(msg["game"])
                for key, info in env._entity_infos.items():
                    info.name = msg.get("names", {}).get(key, info.name)
                out = _state_dict(env.reset(), env)
            elif msg["op"] == "reset":
                out = _state_dict(env.reset(), env)
            elif msg["op"] == "step":
                st, _, _ = env.step(msg["command"])
                out = _state_dict(st, env)
            else:
                out = {"error": f"unknown op {msg['op']!r}"}
        except Exception as e:  # reported to the parent, which raises it as an error
            out = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
