// The count store's node counts by label and relationship counts by type (no scan: a constant-time read).
CALL db.stats.retrieve('GRAPH COUNTS') YIELD data
RETURN [n IN data.nodes WHERE n.label IS NOT NULL | {label: n.label, count: n.count}] AS labels,
       [r IN data.relationships WHERE r.relationshipType IS NOT NULL AND r.startLabel IS NULL AND r.endLabel IS NULL
        | {type: r.relationshipType, count: r.count}] AS relationships
