import json, math, random, sys                       # k-RR speaking ldpaudit's JSON-lines protocol
d, eps = int(sys.argv[1]), float(sys.argv[2])
keep = math.exp(eps) / (math.exp(eps) + d - 1)
for line in sys.stdin:                               # one request per line
    req = json.loads(line)
    rng, x = random.Random(req["seed"]), req["input"]
    def one():
        y = rng.randrange(d - 1)
        return x if rng.random() < keep else y + (y >= x)
    print(json.dumps({"outputs": [one() for _ in range(req["count"])]}), flush=True)
