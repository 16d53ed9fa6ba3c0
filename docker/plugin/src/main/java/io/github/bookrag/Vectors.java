package io.github.bookrag;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.impl.schema.vector.VectorSimilarity;
import org.neo4j.kernel.api.vector.VectorCandidate;
import org.neo4j.kernel.api.vector.VectorSimilarityFunction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.values.storable.Values;

/**
 * Exact cosine similarity of a question vector to one document's stored vectors, computed where they are stored.
 *
 * <p>Cypher's {@code vector.similarity.cosine} over {@code MATCH (n {doc_key: $doc})} turns every stored float
 * array into a list of boxed values before it scores it. These procedures read each node's {@code float[]} once and
 * score it with the very function Cypher calls ({@code VectorSimilarity.COSINE.latestImplementation()}: the
 * similarity {@code (1 + cos) / 2}, clamped to [0, 1]), so their scores equal Cypher's to the bit. Ties are broken
 * by key, as the Cypher path's {@code ORDER BY score DESC, key}.
 *
 * <p>A document's vectors, once read, stay in a {@link StampedCache}: never older than the store.
 */
public final class Vectors {
    public static final String VERSION = "1.4.0";

    @Context
    public Transaction tx;

    @Context
    public GraphDatabaseAPI db;

    /** One document's nodes of one label: keys, names (entities' first part of name_key, else null) and vectors
     *  (null: none cosine can score). */
    record Loaded(String[] keys, String[] names, float[][] vectors, long floats, String order) {}

    private static final StampedCache<Loaded> CACHE = new StampedCache<>(128L << 20); // 128 MiB of vectors at most
    private static final StampedCache<TableRows> ROWS = new StampedCache<>(64L << 20);
    private static final RelationshipType HAS_ROW = RelationshipType.withName("HAS_ROW");

    private static final VectorSimilarityFunction COSINE = VectorSimilarity.COSINE.latestImplementation();
    private static final int PARALLEL_MIN = 2048; // entities from which linkEntities scores in slices, one a core
    private static final int MAX_PARTS = 4;
    private static final Comparator<Scored> BEST_FIRST =
            Comparator.comparingDouble((Scored s) -> -s.score).thenComparing(s -> s.key);

    /** A node's key and its similarity to the question. */
    public static final class Scored {
        public String key;
        public double score;

        Scored(String key, double score) {
            this.key = key;
            this.score = score;
        }
    }

    /** One question vector's links: its index in the call, a node's key and its score. */
    public static final class Link {
        public long index;
        public String key;
        public double score;

        Link(long index, String key, double score) {
            this.index = index;
            this.key = key;
            this.score = score;
        }
    }

    /** The plugin's version, for bookrag doctor. */
    public static final class Version {
        public String version = VERSION;
    }

    @Procedure(name = "bookrag.version", mode = Mode.READ)
    @Description("bookrag.version() :: (version): the version of bookrag-neo4j's plugin")
    public Stream<Version> version() {
        return Stream.of(new Version());
    }

    @Procedure(name = "bookrag.similarities", mode = Mode.READ)
    @Description("bookrag.similarities(label, docKey, vector, skipKind, top, property) :: (key, score): the "
            + "similarity (1 + cos) / 2 of `vector` to the vector `property` (default `embedding`) of each node of "
            + "`label` whose doc_key is `docKey` (but those whose kind is `skipKind`, and those without such a vector "
            + "of its dimension); the best `top`, ties by key, or all of them in no order when `top` is negative")
    public Stream<Scored> similarities(@Name("label") String label, @Name("docKey") String docKey,
                                       @Name("vector") List<Double> vector,
                                       @Name(value = "skipKind", defaultValue = "") String skipKind,
                                       @Name(value = "top", defaultValue = "-1") long top,
                                       @Name(value = "property", defaultValue = "embedding") String property) {
        float[] question = valid(vector);
        List<Scored> all = new ArrayList<>();
        PriorityQueue<Scored> best = new PriorityQueue<>(BEST_FIRST.reversed());
        Loaded loaded = load(label, docKey, skipKind, property);
        for (int i = 0; i < loaded.keys.length; i++) {
            float[] stored = loaded.vectors[i];
            if (stored == null || stored.length != question.length) {
                continue;
            }
            Scored scored = new Scored(loaded.keys[i], COSINE.compare(stored, question));
            if (top < 0) {
                all.add(scored);
            } else if (best.size() < top) {
                best.add(scored);
            } else if (top > 0 && BEST_FIRST.compare(scored, best.peek()) < 0) {
                best.poll();
                best.add(scored);
            }
        }
        if (top >= 0) {
            all.addAll(best);
            all.sort(BEST_FIRST);
        }
        return all.stream();
    }

    /** Every node's similarity in one row: the keys' order (a digest of them), the keys unless the caller holds
     *  that order already, and the scores as little-endian float64 bytes in that order (NaN: not scored). */
    public static final class ScoreArray {
        public String order;
        public List<String> keys;
        public byte[] scores;

        ScoreArray(String order, List<String> keys, byte[] scores) {
            this.order = order;
            this.keys = keys;
            this.scores = scores;
        }
    }

    @Procedure(name = "bookrag.similarityArray", mode = Mode.READ)
    @Description("bookrag.similarityArray(label, docKey, vector, skipKind, knownOrder) :: (order, keys, scores): "
            + "bookrag.similarities(label, docKey, vector, skipKind, -1) as one row: `scores` the similarities as "
            + "little-endian float64 bytes (NaN for a node without a vector of the dimension) in the order of `keys`; "
            + "`order` a digest of those keys, and `keys` null when it equals `knownOrder` (the caller has them)")
    public Stream<ScoreArray> similarityArray(@Name("label") String label, @Name("docKey") String docKey,
                                              @Name("vector") List<Double> vector,
                                              @Name(value = "skipKind", defaultValue = "") String skipKind,
                                              @Name(value = "knownOrder", defaultValue = "") String knownOrder) {
        float[] question = valid(vector);
        Loaded loaded = load(label, docKey, skipKind, "embedding");
        ByteBuffer scores = ByteBuffer.allocate(8 * loaded.keys.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float[] stored : loaded.vectors) {
            scores.putDouble(stored == null || stored.length != question.length ? Double.NaN
                    : COSINE.compare(stored, question));
        }
        return Stream.of(new ScoreArray(loaded.order, loaded.order.equals(knownOrder) ? null
                : Arrays.asList(loaded.keys), scores.array()));
    }

    @Procedure(name = "bookrag.linkEntities", mode = Mode.READ)
    @Description("bookrag.linkEntities(docKey, entities, threshold, top) :: (index, key, score): for each question "
            + "entity {name, vector}, the Entity nodes of `docKey` with that name (score 1.0: the first part of "
            + "name_key) or whose embedding's similarity to its vector is at least `threshold`; the best `top` of "
            + "each, ties by key; rows by index, best first")
    public Stream<Link> linkEntities(@Name("docKey") String docKey, @Name("entities") List<Map<String, Object>> entities,
                                     @Name("threshold") double threshold, @Name("top") long top) {
        int count = entities.size();
        String[] names = new String[count];
        float[][] vectors = new float[count][];
        List<List<Scored>> found = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Object name = entities.get(i).get("name");
            names[i] = name == null ? "" : name.toString();
            @SuppressWarnings("unchecked")
            List<Double> vector = (List<Double>) entities.get(i).get("vector");
            vectors[i] = vector == null ? null : valid(vector);
            found.add(new ArrayList<>());
        }
        Loaded loaded = load("Entity", docKey, "", "embedding");
        int total = loaded.keys.length;
        int parts = total < PARALLEL_MIN ? 1 : Math.min(MAX_PARTS, Runtime.getRuntime().availableProcessors());
        // The entities in slices scored on the common pool (read from the cache: no transaction is touched), then
        // merged; each score is the same call, and the sort below orders them whatever slice found them.
        List<List<List<Scored>>> slices = IntStream.range(0, parts).parallel()
                .mapToObj(part -> linked(loaded, names, vectors, threshold, total * part / parts,
                        total * (part + 1) / parts))
                .toList();
        for (List<List<Scored>> slice : slices) {
            for (int i = 0; i < count; i++) {
                found.get(i).addAll(slice.get(i));
            }
        }
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<Scored> mine = found.get(i);
            mine.sort(BEST_FIRST);
            for (int j = 0; j < Math.min(top, mine.size()); j++) {
                links.add(new Link(i, mine.get(j).key, mine.get(j).score));
            }
        }
        return links.stream();
    }

    /** The links of entities {@code from} to {@code to} of {@code loaded}: for each question entity, those with its
     *  name (score 1.0) or a similarity of at least {@code threshold}, in entity order. */
    private static List<List<Scored>> linked(Loaded loaded, String[] names, float[][] vectors, double threshold,
                                             int from, int to) {
        List<List<Scored>> found = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            found.add(new ArrayList<>());
        }
        for (int n = from; n < to; n++) {
            float[] stored = loaded.vectors[n];
            for (int i = 0; i < names.length; i++) {
                double score;
                if (!names[i].isEmpty() && names[i].equals(loaded.names[n])) {
                    score = 1.0;
                } else if (vectors[i] == null || stored == null || stored.length != vectors[i].length) {
                    continue;
                } else {
                    score = COSINE.compare(stored, vectors[i]);
                }
                if (score >= threshold) {
                    found.get(i).add(new Scored(loaded.keys[n], score));
                }
            }
        }
        return found;
    }

    @Procedure(name = "bookrag.bestRows", mode = Mode.READ)
    @Description("bookrag.bestRows(docKey, vector, tables) :: (key, score): for each table block (a TreeNode key) of "
            + "`tables` in document `docKey`, the best similarity (1 + cos) / 2 of `vector` to the embedding of one of "
            + "its rows (HAS_ROW TableChunk); no row for a table without an embedded row of the vector's dimension")
    public Stream<Scored> bestRows(@Name("docKey") String docKey, @Name("vector") List<Double> vector,
                                   @Name("tables") List<String> tables) {
        float[] question = valid(vector);
        Map<String, float[][]> rows = ROWS.get(db, docKey, () -> readRows(docKey), TableRows::bytes).byTable;
        List<Scored> found = new ArrayList<>();
        for (String table : new LinkedHashSet<>(tables)) {
            Double best = null;
            for (float[] row : rows.getOrDefault(table, new float[0][])) {
                if (row.length == question.length) {
                    double score = COSINE.compare(row, question);
                    best = best == null ? score : Math.max(best, score);
                }
            }
            if (best != null) {
                found.add(new Scored(table, best));
            }
        }
        return found.stream();
    }

    /** A document's embedded table rows, by table key. */
    record TableRows(Map<String, float[][]> byTable, long floats) {
        long bytes() {
            return 4 * floats + 64L * byTable.size();
        }
    }

    private TableRows readRows(String docKey) {
        Map<String, List<float[]>> byTable = new HashMap<>();
        long floats = 0;
        try (ResourceIterator<Node> rows = tx.findNodes(Label.label("TableChunk"), "doc_key", docKey)) {
            while (rows.hasNext()) {
                Node row = rows.next();
                Object embedding = row.getProperty("embedding", null);
                float[] stored = embedding == null ? null
                        : COSINE.maybeToValidVector(VectorCandidate.maybeFrom(Values.of(embedding)));
                if (stored == null) {
                    continue;
                }
                for (Relationship has : row.getRelationships(Direction.INCOMING, HAS_ROW)) {
                    byTable.computeIfAbsent((String) has.getStartNode().getProperty("key"), k -> new ArrayList<>())
                            .add(stored);
                    floats += stored.length;
                }
            }
        }
        Map<String, float[][]> arrays = new HashMap<>();
        byTable.forEach((table, list) -> arrays.put(table, list.toArray(new float[0][])));
        return new TableRows(arrays, floats);
    }

    /** The document's nodes of {@code label} with a valid vector in {@code property} (entities also without one;
     *  not those of kind {@code skipKind}), through the cache. */
    private Loaded load(String label, String docKey, String skipKind, String property) {
        return CACHE.get(db, String.join("\u0000", label, docKey, skipKind, property),
                () -> read(label, docKey, skipKind, property),
                loaded -> 4 * loaded.floats);
    }

    private Loaded read(String label, String docKey, String skipKind, String property) {
        List<String> keys = new ArrayList<>();
        List<String> names = label.equals("Entity") ? new ArrayList<>() : null; // linked by name too, embedding or not
        List<float[]> vectors = new ArrayList<>();
        long floats = 0;
        try (ResourceIterator<Node> nodes = tx.findNodes(Label.label(label), "doc_key", docKey)) {
            while (nodes.hasNext()) {
                Node node = nodes.next();
                if (!skipKind.isEmpty() && skipKind.equals(node.getProperty("kind", null))) {
                    continue;
                }
                Object embedding = node.getProperty(property, null);
                float[] stored = embedding == null ? null
                        : COSINE.maybeToValidVector(VectorCandidate.maybeFrom(Values.of(embedding)));
                if (stored == null && names == null) {
                    continue; // no embedding, or one cosine cannot score (Cypher's null): unscored
                }
                keys.add((String) node.getProperty("key"));
                if (names != null) {
                    names.add(((String) node.getProperty("name_key", "")).split("\\|", -1)[0]);
                }
                vectors.add(stored);
                floats += stored == null ? 0 : stored.length;
            }
        }
        return new Loaded(keys.toArray(new String[0]), names == null ? null : names.toArray(new String[0]),
                vectors.toArray(new float[0][]), floats, digest(keys));
    }

    /** A digest of the keys in their order: who holds keys of this digest holds these, in this order. */
    private static String digest(List<String> keys) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String key : keys) {
                sha.update(key.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 16);
        } catch (NoSuchAlgorithmException exc) {
            throw new IllegalStateException(exc);
        }
    }

    private static float[] valid(List<Double> vector) {
        double[] values = new double[vector.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = vector.get(i);
        }
        float[] valid = COSINE.maybeToValidVector(VectorCandidate.maybeFrom(Values.doubleArray(values)));
        if (valid == null) {
            throw new IllegalArgumentException("the question vector is not a valid cosine vector (zero or not finite)");
        }
        return valid;
    }
}
