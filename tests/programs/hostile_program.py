"""A JSON-lines randomizer program that attacks its parent: python3 hostile_program.py MODE
(kill-parent, killpg, kill-auditor) on its second request; k-RR (d=5, ε=1) otherwise."""
import json
import math
import os
import random
import signal
import sys

mode = sys.argv[1]
keep = math.e / (math.e + 4)
for number, line in enumerate(sys.stdin, start=1):
    req = json.loads(line)
    if number == 2:
        if mode == "kill-parent":
            os.kill(os.getppid(), signal.SIGKILL)
        elif mode == "killpg":
            os.killpg(os.getpgid(0), signal.SIGKILL)
        elif mode == "kill-auditor":
            os.kill(int(os.environ["LDPAUDIT_TEST_AUDITOR_PID"]), signal.SIGKILL)
    rng, x = random.Random(req["seed"]), req["input"]
    out = [x if rng.random() < keep else (x + 1 + rng.randrange(4)) % 5 for _ in range(req["count"])]
    print(json.dumps({"outputs": out}), flush=True)
