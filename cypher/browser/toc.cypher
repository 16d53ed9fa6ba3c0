// A document's table of contents as a tree: the Document and its Sections, linked by HAS_CHILD.
// In Browser, edit the first line: WITH "R-intro.pdf" AS doc
WITH $doc AS doc
MATCH (d:Document {name: doc})
MATCH path = (d) (()-[:HAS_CHILD]->(:Section)){1,6}
RETURN path
