// Page furniture: $rows of {key, label, header, footer} (the printed label, running header and footer).
UNWIND $rows AS row
MATCH (p:Page {key: row.key})
SET p.label = row.label, p.header = row.header, p.footer = row.footer
RETURN count(p) AS written
