"""One ``--json`` shape per command: ``passk`` whatever the number of configurations,
``agreement`` whatever the metric (the same top-level keys and the same keys in every row)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from noisefloor.cli.main import cli


def _json(*args) -> object:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_passk_json_has_one_shape_for_one_and_several_configurations(fixtures_dir):
    logs = fixtures_dir / "logs"
    docs = {"one": _json("passk", logs / "tau2_dir", "--k", "1,2", "--json"),
            "runs": _json("passk", logs / "tau2_dir", logs / "tau2_json", "--k", "1,2", "--json"),
            "protocols": _json("passk", logs / "paper", "--benchmark", "tau2/retail",
                               "--model", "m", "--k", "1,2", "--json")}
    assert [len(d["groups"]) for d in docs.values()] == [1, 2, 3]
    assert {mode: list(d) for mode, d in docs.items()} == dict.fromkeys(
        docs, ["groups", "confidence"])
    group_keys = {tuple(g) for d in docs.values() for g in d["groups"]}
    assert len(group_keys) == 1, group_keys
    (keys,) = group_keys
    assert {"run", "pass_hat_k", "pass_at_k", "intervals"} <= set(keys)
    assert len({tuple(r) for d in docs.values() for g in d["groups"] for r in g["details"]}) == 1
