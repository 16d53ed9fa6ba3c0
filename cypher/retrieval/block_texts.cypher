// The texts of document $doc_key's content blocks as Text_Reasoning reads them (section path, title or caption,
// text; the first $max_chars characters), for its whole-document BM25 statistics. One record.
MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section'
RETURN collect(left(trim(coalesce(n.section_path, '') + ' ' + coalesce(n.title, '')) + '\n' + coalesce(n.text, ''),
                    $max_chars)) AS rows
