// Every index with its state and, for vector indexes, its dimension.
SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, options
RETURN name, type, state, labelsOrTypes AS labels, properties,
       options.indexConfig.`vector.dimensions` AS dimensions
ORDER BY name
