-- sqlite3-query.sql - the measured script of prog:sqlite3 (run by `sqlite3 -bail -init`):
-- loads orders.csv into an in-memory database (~25 MiB with its index: the page cache is
-- malloc'd memory), then groups, sorts and joins. @WORKDIR@ is filled in by sqlite3-setup.sh.
-- Always holds: read-only on its input; prints a few short result lines.
CREATE TABLE orders(id INTEGER PRIMARY KEY, product INT, region INT, customer TEXT, amount REAL, note TEXT);
.import --csv @WORKDIR@/orders.csv orders
CREATE INDEX orders_customer ON orders(customer);
SELECT count(*), round(sum(amount), 2) FROM orders;
SELECT region, count(*), round(avg(amount), 2) AS a FROM orders GROUP BY region ORDER BY a DESC LIMIT 3;
SELECT customer, round(sum(amount), 2) AS s FROM orders GROUP BY customer ORDER BY s DESC LIMIT 3;
SELECT count(*) FROM orders a JOIN orders b ON a.customer = b.customer AND a.id < b.id WHERE a.region < 10;
SELECT group_concat(customer, ',') IS NOT NULL FROM (SELECT DISTINCT customer FROM orders ORDER BY customer DESC);
