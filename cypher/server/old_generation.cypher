// Bytes in use in the JVM's old generation (G1 Old Gen, or Tenured Gen/PS Old Gen under other collectors): what
// survived young collections, a steadier figure than the whole heap, which includes young garbage.
CALL dbms.queryJmx('java.lang:type=MemoryPool,*') YIELD name, attributes
WHERE name CONTAINS 'Old Gen' OR name CONTAINS 'Tenured'
RETURN sum(attributes.Usage.value.properties.used) AS used, count(*) AS pools
