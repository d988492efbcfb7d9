-- SQLite keeps every row's rowid; PostgreSQL does not, so there
-- (003_rowid.postgres.sql) the table gets a rowid column that counts up
-- the same way, for the queries that order by insertion.
SELECT 1;
