// The JVM heap of the server that answers (java.lang:type=Memory, the JMX bean Neo4j 5 Community exposes):
// bytes used, committed and the maximum (-Xmx). Neo4j 5 Community exposes no page-cache bean.
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
WITH attributes.HeapMemoryUsage.value.properties AS heap
RETURN heap.used AS used, heap.committed AS committed, heap.max AS max
