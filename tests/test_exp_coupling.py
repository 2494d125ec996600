"""ε inside and outside an exponential (issue 32, item 1): Square Wave written the paper's way,
with b = (ε e^ε - e^ε + 1)/(2 e^ε (e^ε - 1 - ε)) and the window's weight e^(2ε). z3 sees ε and
u = e^ε as two variables; only the exponential's tangent lines at 0 (e^ε >= 1 + ε and
e^(-ε) >= 1 - ε) show b > 0, so that the tight ε (2ε) and the density's validity are proved,
not left "not determined"."""

from __future__ import annotations

from ldpaudit.cli import main

SQUARE_WAVE_DOUBLED = '''
[mechanism]
name = "Square wave, window weight doubled"
claimed_epsilon = "epsilon"

[parameters.epsilon]
type = "real"
min = 0
strict_min = true

[example]
epsilon = 1

[inputs]
low = 0
high = 1

[definitions]
b = "(epsilon*exp(epsilon) - exp(epsilon) + 1)/(2*exp(epsilon)*(exp(epsilon) - 1 - epsilon))"
p = "exp(2*epsilon)/(2*b*exp(2*epsilon) + 1)"
q = "1/(2*b*exp(2*epsilon) + 1)"

[channel]
form = "density"
density = "p if abs(z - x) <= b else (q if -b <= z <= 1 + b else 0)"
'''


def test_tight_epsilon_of_a_window_weighted_twice(tmp_path, capsys):
    spec = tmp_path / "sw2.toml"
    spec.write_text(SQUARE_WAVE_DOUBLED)
    assert main(["verify", str(spec), "--tight"]) == 1            # claims ε, is 2ε-LDP
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("REFUTED: ") and "> e^1 at epsilon=1" in out
    assert "tightest: ε* = 2*epsilon" in out
    assert "∫ f(z|x) dz = 1 and f >= 0 proved for every x and parameter value" in out
    assert "not determined" not in out
