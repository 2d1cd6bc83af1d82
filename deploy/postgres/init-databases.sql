-- One PostgreSQL server, a database and a role per service (the local stack).
CREATE ROLE accounts LOGIN PASSWORD 'accounts-local-only';
CREATE ROLE relay LOGIN PASSWORD 'relay-local-only';
CREATE DATABASE accounts OWNER accounts;
CREATE DATABASE relay OWNER relay;
