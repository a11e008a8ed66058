#!/usr/bin/env python3
"""Writes the regression corpus of hostile dumps, Tests/Corpus/HostileDumps/*.json.gz (see its README)."""
import gzip
import json
import os

BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Corpus", "HostileDumps")
TABLE_T = {"type": "table", "name": "t", "tbl_name": "t", "sql": "CREATE TABLE t (id INTEGER PRIMARY KEY, v)"}
TEMP_TRIGGER = ("CREATE TEMP TRIGGER x AFTER INSERT ON main.t BEGIN UPDATE t SET v = 'TAMPERED' "
                "WHERE id = new.id; END")


def header(tables):
    return {"sqliteVersion": "3.40.1", "userVersion": 0, "applicationId": 0, "pageSize": 4096,
            "encoding": "UTF-8", "autoVacuum": 0, "created": "2026-01-01T00:00:00Z", "tables": tables}


def dump(schema, tables=None, extra=None):
    if tables is None:
        tables = [{"name": "t", "columns": ["id", "v"], "rowid": False, "rowCount": 2,
                   "rows": [[1, "a"], [2, "b"]]}]
    document = {"format": "dbb-dump", "version": 1}
    if extra:
        document.update(extra)
    document["header"] = header([{"name": t["name"], "rowCount": t["rowCount"]} for t in tables])
    document["schema"] = schema
    document["tables"] = tables
    return json.dumps(document)


def entry(kind, name, sql, table=None):
    return {"type": kind, "name": name, "tbl_name": table or name, "sql": sql}


CASES = {
    "rowcount-overflow": dump(
        [TABLE_T, entry("table", "u", "CREATE TABLE u (a)")],
        tables=[{"name": "t", "columns": ["id", "v"], "rowid": False, "rowCount": 9223372036854775807, "rows": []},
                {"name": "u", "columns": ["a"], "rowid": True, "rowCount": 1, "rows": []}]),
    "temp-trigger-as-table": dump([TABLE_T, entry("table", "x", TEMP_TRIGGER)]),
    "temp-trigger-as-trigger": dump([TABLE_T, entry("trigger", "x", TEMP_TRIGGER, "t")]),
    "attach": dump([TABLE_T, entry("table", "x", "ATTACH DATABASE 'attached.sqlite' AS x")]),
    "two-statements": dump([entry("table", "t", "CREATE TABLE t (id INTEGER PRIMARY KEY, v); CREATE TABLE u (a)")]),
    "not-create": dump([TABLE_T, entry("view", "w", "SELECT 1")]),
    "pragma": dump([TABLE_T, entry("index", "i", "PRAGMA writable_schema = ON", "t")]),
    "index-entry-creates-table": dump([TABLE_T, entry("index", "i", "CREATE TABLE i (a)", "t")]),
    "table-entry-creates-view": dump([TABLE_T, entry("table", "w", "CREATE VIEW w AS SELECT * FROM t")]),
    "name-mismatch": dump([TABLE_T, entry("index", "i", "CREATE INDEX j ON t (v)", "t")]),
    "temp-table": dump([entry("table", "t", "CREATE TEMP TABLE t (id INTEGER PRIMARY KEY, v)")]),
    "temp-view": dump([TABLE_T, entry("view", "w", "CREATE TEMP VIEW w AS SELECT * FROM t")]),
    "table-as-select": dump(
        [entry("table", "t", "CREATE TABLE t AS SELECT 1 AS id, 'x' AS v")],
        tables=[{"name": "t", "columns": ["id", "v"], "rowid": True, "rowCount": 0, "rows": []}]),
    "missing-module": dump([TABLE_T, entry("table", "vt", "CREATE VIRTUAL TABLE vt USING nosuchmodule(a)")]),
    "nul-in-sql": dump([entry("table", "t", "CREATE TABLE t (id INTEGER PRIMARY KEY, v)\u0000; DROP TABLE t")]),
    "row-too-wide": dump([TABLE_T], tables=[{"name": "t", "columns": ["id", "v"], "rowid": False, "rowCount": 1,
                                             "rows": [[1, "a"] + [0] * 100000]}]),
    "nested-too-deep": dump([TABLE_T], extra={"future": []}).replace('"future": []', '"future": ' + "[" * 260, 1),
}

for name, text in CASES.items():
    with open(os.path.join(BASE, name + ".json.gz"), "wb") as file:
        file.write(gzip.compress(text.encode(), mtime=0))
print(f"wrote {len(CASES)} hostile dumps to {os.path.normpath(BASE)}")
