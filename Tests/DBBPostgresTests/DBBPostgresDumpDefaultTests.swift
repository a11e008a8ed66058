import Testing

@testable import DBBPostgres

/// Which PostgreSQL column defaults a dump writes into SQLite's schema, and how (no server needed).
struct DBBPostgresDumpDefaultTests {
    @Test(arguments: [
        ("42", "int8", "(42)"),
        ("-3.5", "numeric", "(-3.5)"),
        ("(5)", "int4", "(5)"),
        ("((-7))", "int2", "(-7)"),
        ("2.25", "float8", "(2.25)"),
        ("true", "bool", "1"),
        ("false", "bool", "0"),
        ("'none'::text", "text", "'none'"),
        ("'it''s'::character varying", "varchar", "'it''s'"),
        ("'x'::character varying(20)", "varchar", "'x'"),
        ("'ab'::bpchar", "bpchar", "'ab'"),
        ("'plain'", "text", "'plain'"),
        ("''::text", "text", "''"),
        ("'(1, 2)'::numeric(10, 2)", "text", "'(1, 2)'"),
        ("'a'''", "text", "'a'''"),
        ("' '::text ", "text", "' '"),
    ])
    func constantDefaultsCarryOver(expression: String, base: String, sqlite: String) {
        #expect(PostgresDumpPlan.sqliteDefault(expression, base: base) == sqlite)
    }

    @Test(arguments: [
        ("3.", "int8"), (".5", "float8"), ("-", "int8"), ("1e5", "float8"), ("1.2.3", "numeric"), ("--1", "int8"),
        ("42", "text"), ("'5'::integer", "int4"), ("'a'::text || 'b'::text", "text"), ("'open", "text"),
        ("'x'::\"MyType\"", "text"), ("'x'::character varying()", "varchar"), ("'x'::text(a)", "text"),
        ("now()", "timestamptz"), ("NULL::text", "text"), ("NULL", "int8"), ("yes", "bool"),
        ("nextval('t_id_seq'::regclass)", "int8"), ("'x'::", "text"), ("'a''", "text"), ("(  4 )", "int8"),
    ])
    func otherDefaultsDoNot(expression: String, base: String) {
        #expect(PostgresDumpPlan.sqliteDefault(expression, base: base) == nil)
    }
}
