// A document's table of contents as a tree: the Document and its Sections, linked by HAS_CHILD.
// Browser: :param doc => "R-intro.pdf"
MATCH (d:Document {name: $doc})
MATCH path = (d) (()-[:HAS_CHILD]->(:Section)){1,6}
RETURN path
