// The property keys of each node label the text2Cypher prompt describes (from the database's own schema).
CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName
UNWIND nodeLabels AS label
WITH label, propertyName WHERE label IN $labels AND propertyName IS NOT NULL AND NOT propertyName IN $hidden
WITH label, propertyName ORDER BY label, propertyName
RETURN label, collect(DISTINCT propertyName) AS properties
