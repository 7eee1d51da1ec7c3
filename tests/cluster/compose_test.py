#!/usr/bin/env python3
"""Checks docker/compose.yaml's structure (Docker is not on the test machines): the one-node
SQLite service is there without a profile, and the `cluster` profile has PostgreSQL, two nodes
on it with distinct --node-id, and HAProxy with docker/haproxy.cfg and both nodes' addresses."""
import pathlib
import sys

import yaml

root = pathlib.Path(__file__).resolve().parents[2]
compose = yaml.safe_load((root / "docker" / "compose.yaml").read_text())
services = compose["services"]
problems = []

def check(condition, what):
    if not condition:
        problems.append(what)

default = [name for name, service in services.items() if not service.get("profiles")]
check(default == ["melee"], f"without a profile only the SQLite node runs, not {default}")
check("--store" not in str(services["melee"]), "the default node keeps SQLite")
cluster = {name for name, service in services.items() if "cluster" in service.get("profiles", [])}
check(cluster == {"postgres", "node-a", "node-b", "haproxy"}, f"the cluster profile: {cluster}")

node_ids = []
for name in ("node-a", "node-b"):
    command = services[name]["command"]
    check(command[command.index("--store") + 1].startswith("postgresql://"), f"{name}: --store")
    node_ids.append(command[command.index("--node-id") + 1])
    check("--lease-seconds" in command, f"{name}: --lease-seconds")
    check(services[name]["volumes"] == services["node-a"]["volumes"],
          f"{name} shares node-a's key and dice secret")
check(len(set(node_ids)) == 2, f"distinct node ids: {node_ids}")
check(services["node-b"]["depends_on"]["node-a"]["condition"] == "service_healthy",
      "node-b starts once node-a made the secrets")

proxy = services["haproxy"]
check(any(v.startswith("./haproxy.cfg:") for v in proxy["volumes"]), "HAProxy uses haproxy.cfg")
check(proxy["environment"]["MELEE_NODE_A"].startswith("node-a:") and
      proxy["environment"]["MELEE_NODE_B"].startswith("node-b:"), "HAProxy's node addresses")
config = (root / "docker" / "haproxy.cfg").read_text()
for needle in ("${MELEE_LISTEN}", "${MELEE_NODE_A}", "${MELEE_NODE_B}", "hash-type consistent",
               "GET /healthz"):
    check(needle in config, f"haproxy.cfg has {needle}")
check(set(compose["volumes"]) >= {"melee-data", "melee-postgres", "melee-cluster-secrets"},
      "the volumes")

for problem in problems:
    print("docker/compose.yaml:", problem)
sys.exit(1 if problems else 0)
