package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// ginCompanionsSQL makes FerretDB's pushed-down filters use indexes on PostgreSQL.
//
// FerretDB's PostgreSQL handler stores each document in one jsonb column `_jsonb` and pushes an
// equality filter down as `_jsonb->'field' @> value` (a dotted path as `_jsonb #> '{a,b}'`),
// but it builds MongoDB indexes as btree indexes on `(_jsonb->'field')`, which the jsonb
// containment operator `@>` cannot use: every pushed-down lookup, `_id` included, is a
// sequential scan (about 0.45 µs per document: 22 ms at 50,000 documents). A GIN index on the
// same expressions answers `@>`. So an event trigger gives every btree index FerretDB creates on
// top-level fields a GIN companion over the same fields (dropped with it), and docdb's start adds
// those missing for indexes made before the trigger existed (existingBtreesSQL). Dotted paths
// are left out (they would need `#>` expressions); such filters still work, by scanning. FerretDB never
// sees the companions: it lists indexes from its own metadata, not from PostgreSQL's catalog.
// An index on `_id` alone gets none: docdb's FerretDB pushes a string or ObjectId `_id` down as
// plain equality, which the btree answers (patches/ferretdb-4-id-equality-btree.patch).
// Lookups reach them with generic plans too: field names are in the statement text
// (patches/ferretdb-5-field-names-in-sql-text.patch). Measured at 50,000 documents:
// findOne by `_id` or by two indexed fields 20–30 ms → ~1 ms, flat from 1,000 documents up.
//
// The btree itself then answers almost nothing FerretDB asks: it pushes down `@>` (the GIN
// companion), `=` on `_id` (a unique index), `IS NULL` for `{field: null}`
// (patches/ferretdb-3-pushdown-null-exists.patch), `?` and `#> ... IS NOT NULL` for `$exists`
// (no index), and sorts only by `$natural`; ranges (`$lt`, `$gt`) are not pushed down. Yet every
// insert and every update writes every index (none is HOT: each is an expression over the one
// `_jsonb` column). So a non-unique btree on top-level fields is narrowed to the documents that
// lack its first field (`WHERE (_jsonb->'first') IS NULL`), under the same name: it still answers
// `{first: null}` and costs nothing on the documents that carry the field. Unique indexes keep
// every document (they enforce the key). Should ranges ever be pushed down, an index whose
// first field is range-queried needs its full btree back.
//
// An index on a positional path (`{"a.0": 1}`, the outbox relays' `pending_ids.0`) FerretDB
// builds as a btree on `(_jsonb -> 'a') -> '0'`: `->` with a text key is NULL for every array,
// so it holds nothing useful, while `{"a.0": {$exists: true}}` is pushed down as
// `_jsonb #> '{a,0}' IS NOT NULL` (patches/ferretdb-3-pushdown-null-exists.patch), a sequential
// scan of the collection. A non-unique btree on one such path is made again, under its name, as
// a partial index on `_jsonb #> '{a,N}'` holding only the documents where that path exists (the
// records with events waiting: a handful, whatever the collection's size), which the pushed-down
// condition implies. PostgreSQL guesses 99.5 % of rows for `IS NOT NULL` on an expression it has
// no statistics for, and a partial index's statistics are never used for the table's rows, so
// the index would lose to a sequential scan: a statistics object on the same expression (named
// after the index, dropped with it) gives ANALYZE's share of documents holding the path (no
// cost on writes; autovacuum's analyses keep it current). A collection that already has
// documents is analysed when its index is made over (at docdb's first start on an existing
// database, say), since autovacuum analyses a large table only after a tenth of it changed.
// Idempotent; needs a superuser (event triggers).
const ginCompanionsSQL = `
CREATE OR REPLACE FUNCTION docdb_gin_name(idx name) RETURNS name LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN length(idx) <= 59 THEN idx || '_gin'
              ELSE left(idx, 50) || '_' || left(md5(idx), 8) || '_gin' END
$fn$;

CREATE OR REPLACE FUNCTION docdb_stat_name(idx name) RETURNS name LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN length(idx) <= 58 THEN idx || '_stat'
              ELSE left(idx, 49) || '_' || left(md5(idx), 8) || '_stat' END
$fn$;

CREATE OR REPLACE FUNCTION docdb_add_gin(idx oid) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  ix pg_index;
  am name;
  idxname name;
  nsp name;
  cols text[] := '{}';
  expr text;
  k int;
  def text;
  pos text[];
  path text;
  has_rows boolean;
BEGIN
  SELECT * INTO ix FROM pg_index WHERE indexrelid = idx;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT a.amname, c.relname, n.nspname INTO am, idxname, nsp
    FROM pg_class c JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.oid = idx;
  -- FerretDB's own metadata tables keep their indexes.
  IF am <> 'btree' OR idxname LIKE '\_ferretdb\_%' THEN RETURN; END IF;
  -- A non-unique btree on one positional path a.N becomes a partial index on _jsonb #> '{a,N}'
  -- holding the documents where the path exists (what {"a.N": {$exists: true}} looks up),
  -- with statistics on the expression so that the planner knows how few they are.
  IF NOT ix.indisunique AND ix.indpred IS NULL AND ix.indnatts = 1 THEN
    pos := regexp_match(pg_get_indexdef(idx, 1, true),
      '^\(\(_jsonb -> ''([^'']*)''::text\) -> ''([0-9]{1,9})''::text\)$');
    IF pos IS NOT NULL THEN
      path := format('(_jsonb #> %L::text[])', ARRAY[pos[1], pos[2]]::text);
      PERFORM set_config('docdb.narrowing', 'on', true); -- the drop below keeps the statistics
      EXECUTE format('DROP INDEX %I.%I', nsp, idxname);
      PERFORM set_config('docdb.narrowing', 'off', true);
      EXECUTE format('CREATE INDEX %I ON %s (%s) WHERE %s IS NOT NULL',
        idxname, ix.indrelid::regclass, path, path);
      EXECUTE format('CREATE STATISTICS IF NOT EXISTS %I.%I ON %s FROM %s',
        nsp, docdb_stat_name(idxname), path, ix.indrelid::regclass);
      -- A collection with documents already gets its statistics now: autovacuum analyses a
      -- large table only once a tenth of it has changed.
      EXECUTE format('SELECT EXISTS (SELECT FROM %s)', ix.indrelid::regclass) INTO has_rows;
      IF has_rows THEN
        EXECUTE format('ANALYZE %s', ix.indrelid::regclass);
      END IF;
      RETURN;
    END IF;
  END IF;
  FOR k IN 1..ix.indnatts LOOP
    expr := pg_get_indexdef(idx, k, true);
    IF expr ~ '^\(_jsonb -> ''[^'']*''::text\)$' THEN
      cols := cols || expr;
    END IF;
  END LOOP;
  IF cardinality(cols) = 0 THEN RETURN; END IF;
  -- A non-unique btree on top-level fields keeps only the documents without its first field
  -- (what {first: null} looks up); made again under its name, so FerretDB's drop still finds it.
  IF NOT ix.indisunique AND ix.indpred IS NULL AND cardinality(cols) = ix.indnatts THEN
    def := pg_get_indexdef(idx);
    PERFORM set_config('docdb.narrowing', 'on', true); -- the drop below keeps the companion
    EXECUTE format('DROP INDEX %I.%I',
      (SELECT nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid WHERE c.oid = idx),
      idxname);
    PERFORM set_config('docdb.narrowing', 'off', true);
    EXECUTE def || format(' WHERE (%s IS NULL)', cols[1]);
    -- The CREATE above ran this function again for the new index, which made the companion.
    RETURN;
  END IF;
  -- An _id lookup is pushed down as equality, which the btree answers: no companion, and the
  -- one an older docdb made is dropped (one index less to write on every insert and update).
  IF cols = ARRAY['(_jsonb -> ''_id''::text)'] THEN
    EXECUTE format('DROP INDEX IF EXISTS %I.%I',
      (SELECT nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid WHERE c.oid = idx),
      docdb_gin_name(idxname));
    RETURN;
  END IF;
  -- fastupdate off: no pending list for every lookup to scan.
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%s) WITH (fastupdate = off)',
    docdb_gin_name(idxname), ix.indrelid::regclass, array_to_string(cols, ', '));
END
$fn$;

CREATE OR REPLACE FUNCTION docdb_on_create_index() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE r record;
BEGIN
  FOR r IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM docdb_add_gin(r.objid);
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION docdb_on_drop_index() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE r record;
BEGIN
  -- Only indexes dropped by name (dropIndexes); a dropped table takes its indexes along.
  FOR r IN SELECT schema_name, object_name FROM pg_event_trigger_dropped_objects()
           WHERE object_type = 'index' AND original AND object_name NOT LIKE '%\_gin'
             AND coalesce(current_setting('docdb.narrowing', true), '') <> 'on' LOOP
    EXECUTE format('DROP INDEX IF EXISTS %I.%I', r.schema_name, docdb_gin_name(r.object_name));
    EXECUTE format('DROP STATISTICS IF EXISTS %I.%I', r.schema_name, docdb_stat_name(r.object_name));
  END LOOP;
END
$fn$;

DROP EVENT TRIGGER IF EXISTS docdb_gin_on_create_index;
CREATE EVENT TRIGGER docdb_gin_on_create_index ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION docdb_on_create_index();
DROP EVENT TRIGGER IF EXISTS docdb_gin_on_drop_index;
CREATE EVENT TRIGGER docdb_gin_on_drop_index ON sql_drop
  WHEN TAG IN ('DROP INDEX') EXECUTE FUNCTION docdb_on_drop_index();
`

// existingBtreesSQL lists the btree indexes made before the trigger existed (or before it
// narrowed them), for docdb_add_gin one by one.
const existingBtreesSQL = `
SELECT i.indexrelid::bigint
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE a.amname = 'btree' AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`

// preparePostgreSQL checks that the database answers, and installs ginCompanionsSQL when gin is
// set. Only an unreachable database is an error: without the companions lookups still work, by
// scanning (a user that is not a superuser cannot create event triggers).
func preparePostgreSQL(dbURL string, gin bool, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("cannot connect to PostgreSQL at %s: %w", redactURL(dbURL), err)
	}
	defer conn.Close(ctx)
	if !gin {
		return nil
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, ginCompanionsSQL)
		return err
	})
	if err != nil {
		logger.Warn("no GIN companion indexes: lookups will scan their collection", "error", err)
		return nil
	}
	// Each existing index in a transaction of its own, so that a database of many collections
	// never holds the locks of all their indexes at once.
	rows, err := conn.Query(ctx, existingBtreesSQL)
	if err != nil {
		logger.Warn("existing indexes not listed: they keep their shape", "error", err)
		return nil
	}
	oids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		logger.Warn("existing indexes not listed: they keep their shape", "error", err)
		return nil
	}
	for _, oid := range oids {
		if _, err := conn.Exec(ctx, "SELECT docdb_add_gin($1::oid)", oid); err != nil {
			logger.Warn("index left as it was", "oid", oid, "error", err)
		}
	}
	return nil
}

// checkPostgreSQLURL checks that the URL for FerretDB is a postgres:// URL, and leaves PostgreSQL's
// plan cache mode alone. FerretDB used to send a filter's field name as a parameter
// (`_jsonb->$1 @> $2`), so a generic plan, made without the field, could use no index (0.9 ms by
// `_id` turned into 18 ms at 50,000 documents mid-run), and docdb forced a custom plan for every
// execution, whose planning cost twice the execution of an `_id` lookup. docdb's FerretDB writes
// field names into the statement text (patches/ferretdb-5-field-names-in-sql-text.patch), so the
// generic plan of each statement uses the field's index and PostgreSQL reuses it. A URL can still
// set plan_cache_mode.
func checkPostgreSQLURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("-postgresql-url must be a postgres:// URL, got %q", redactURL(raw))
	}
	return raw, nil
}

// redactURL hides the password of a URL, for logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// poolSize is the number of PostgreSQL connections FerretDB pools for a database URL: its
// pool_max_conns, else FerretDB's default of 50 (internal/backends/postgresql/metadata/pool).
func poolSize(raw string) int {
	const ferretDBDefault = 50
	u, err := url.Parse(raw)
	if err != nil {
		return ferretDBDefault
	}
	n, err := strconv.Atoi(u.Query().Get("pool_max_conns"))
	if err != nil || n <= 0 {
		return ferretDBDefault
	}
	return n
}
