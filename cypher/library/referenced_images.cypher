// Which of these image files a node still references (after a delete: another document's), so they stay.
MATCH (n:Image)
WHERE n.image_path IN $paths
RETURN collect(DISTINCT n.image_path) AS rows
