# SPDX-License-Identifier: MIT
"""The Grafana dashboard's fleet page (deploy/grafana-rackbench.json: its PostgreSQL
panels and variables) as Grafana runs it: each query's macros and variables replaced,
then run against a real server by the results database's tests. A query that names a
column or view the schema lacks fails there, as a panel would in Grafana."""
import json
import os
import re

from rbtest import SRC, check

DASHBOARD = os.path.join(SRC, "deploy", "grafana-rackbench.json")


def queries():
    """{panel title or $variable: its SQL} of every PostgreSQL query of the dashboard."""
    with open(DASHBOARD) as f:
        dash = json.load(f)
    out = {}
    for p in dash["panels"]:
        for t in p.get("targets", []):
            if "rawSql" in t:
                check(p["datasource"]["type"] == "postgres", f"{p['title']}: a SQL panel")
                out[p["title"]] = t["rawSql"]
    for v in dash.get("templating", {}).get("list", []):
        if v.get("datasource", {}).get("type") == "postgres":
            out["$" + v["name"]] = v["query"]
    return out


def expand(sql, campaigns, point):
    """sql as Grafana sends it: $__timeFilter(COL) over every time, $campaign the
    campaigns (a multi-value variable: quoted, comma-separated), $point one name."""
    sql = re.sub(r"\$__timeFilter\((\w+)\)",
                 r"\1 BETWEEN '1970-01-01T00:00:00Z' AND '2200-01-01T00:00:00Z'", sql)
    sql = sql.replace("$campaign", ", ".join("'" + c.replace("'", "''") + "'"
                                             for c in campaigns))
    sql = sql.replace("$point", point.replace("'", "''"))
    check("$" not in sql, f"a macro or variable left in {sql}")
    return sql


def run_all(pg, campaigns, point):
    """{title: rows} of every query of the fleet page, each run on pg."""
    return {title: pg.sql(None, expand(sql, campaigns, point))
            for title, sql in queries().items()}
