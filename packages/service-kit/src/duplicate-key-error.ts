/**
 * A write broke a unique index. MongoDB says so with code 11000, and so does FerretDB 1.24 for
 * inserts; an update into a taken key it answers with code 1 and its backend's own words (SQLite:
 * "UNIQUE constraint failed"; PostgreSQL: "duplicate key value …", SQLSTATE 23505). A bulk write's
 * per-document error (`errmsg`) is read the same way.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  const { code, message, errmsg } = (error ?? {}) as {
    code?: number;
    message?: string;
    errmsg?: string;
  };
  const words = message ?? errmsg ?? '';
  return code === 11000 || (code === 1 && /UNIQUE constraint failed|SQLSTATE 23505/.test(words));
}
