// Whether the Graph Data Science plugin is loaded.
SHOW FUNCTIONS YIELD name
WHERE name = 'gds.version'
RETURN count(*) > 0 AS installed
