package io.github.bookrag;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;

/**
 * Graph_Reasoning where the graph is stored: personalized PageRank over one document's entity graph, and the tree
 * nodes scored from their GT-Linked entities, in one call.
 *
 * <p>It computes what GDS's PageRank computes on the document's projection (gds/project_document_entities: the
 * document's entities, their RELATED and CONTAINED_IN edges as undirected, weighted by {@code weight} or 1): each
 * node starts at {@code 1 - damping} (a source) or 0 and passes on what it gained in a step, split by edge weight;
 * a node whose gain is at most {@code tolerance} stops passing it on; the walk stops when none passes anything on,
 * or after {@code maxIterations} steps, the first included. GDS runs it as a general Pregel program, messages and
 * all; here it is a plain loop over an adjacency array kept in a {@link StampedCache}, the same loop as the
 * in-process engine's (retrieval/reasoners.py, {@code pagerank_on}).
 */
public final class PageRank {
    private static final Label ENTITY = Label.label("Entity");
    private static final Label TREE_NODE = Label.label("TreeNode");
    private static final RelationshipType MENTIONED_IN = RelationshipType.withName("MENTIONED_IN");
    private static final RelationshipType[] EDGES = {
        RelationshipType.withName("RELATED"), RelationshipType.withName("CONTAINED_IN")};

    private static final StampedCache<EntityGraph> CACHE = new StampedCache<>(64L << 20);

    @Context
    public Transaction tx;

    @Context
    public GraphDatabaseAPI db;

    /**
     * One document's entity graph: entity keys by position; for each entity its neighbours' positions and the share
     * of their weight it receives ({@code w(u, v) / w(u)}), an entry per edge end (compressed sparse rows); and the
     * tree nodes' linked entities (positions, one per GT-Link).
     */
    record EntityGraph(Map<String, Integer> position, int[] start, int[] from, double[] share,
                       Map<String, int[]> linked) {
        long bytes() {
            return 64L * position.size() + 4L * start.length + 12L * from.length + 48L * linked.size();
        }
    }

    @Procedure(name = "bookrag.pageRank", mode = Mode.READ)
    @Description("bookrag.pageRank(docKey, sourceKeys, nodeKeys, config) :: (key, score): personalized PageRank over "
            + "document `docKey`'s entity graph from its entities among `sourceKeys` (config: dampingFactor, "
            + "maxIterations, tolerance, as GDS's pageRank), and each TreeNode of `nodeKeys` GT-Linked to its entities "
            + "scored from theirs (config.nodeScore: sum, mean or max); no rows when no source is in the document")
    public Stream<Vectors.Scored> pageRank(@Name("docKey") String docKey,
                                           @Name("sourceKeys") List<String> sourceKeys,
                                           @Name("nodeKeys") List<String> nodeKeys,
                                           @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        EntityGraph graph = CACHE.get(db, docKey, () -> read(docKey), EntityGraph::bytes);
        Set<Integer> sources = new HashSet<>();
        for (String key : sourceKeys) {
            Integer at = graph.position.get(key);
            if (at != null) {
                sources.add(at);
            }
        }
        if (sources.isEmpty()) {
            return Stream.empty();
        }
        double[] scores = walk(graph, sources, number(config, "dampingFactor", 0.85),
                (int) number(config, "maxIterations", 20), number(config, "tolerance", 1e-7));
        String combine = String.valueOf(config.getOrDefault("nodeScore", "sum"));
        List<Vectors.Scored> found = new ArrayList<>();
        for (String key : new LinkedHashSet<>(nodeKeys)) {
            int[] entities = graph.linked.get(key);
            if (entities != null) {
                found.add(new Vectors.Scored(key, combined(scores, entities, combine)));
            }
        }
        return found.stream();
    }

    /** Personalized PageRank's scores by position (see the class comment). */
    static double[] walk(EntityGraph graph, Set<Integer> sources, double damping, int maxIterations,
                         double tolerance) {
        int n = graph.start.length - 1;
        double[] scores = new double[n];
        double[] passed = new double[n];
        double[] delta = new double[n];
        for (int s : sources) {
            scores[s] = 1.0 - damping;
            passed[s] = 1.0 - damping;
        }
        for (int step = 1; step < maxIterations; step++) {
            boolean moving = false;
            for (int v = 0; v < n; v++) {
                double sum = 0.0;
                for (int e = graph.start[v]; e < graph.start[v + 1]; e++) {
                    sum += graph.share[e] * passed[graph.from[e]];
                }
                delta[v] = damping * sum;
                scores[v] += delta[v];
                moving |= delta[v] > tolerance;
            }
            if (!moving) {
                break;
            }
            for (int v = 0; v < n; v++) {
                passed[v] = delta[v] > tolerance ? delta[v] : 0.0;
            }
        }
        return scores;
    }

    private static double combined(double[] scores, int[] entities, String how) {
        double total = 0.0;
        double best = Double.NEGATIVE_INFINITY;
        for (int e : entities) {
            total += scores[e];
            best = Math.max(best, scores[e]);
        }
        return switch (how) {
            case "mean" -> total / entities.length;
            case "max" -> best;
            default -> total;
        };
    }

    private static double number(Map<String, Object> config, String name, double otherwise) {
        Object value = config.get(name);
        return value instanceof Number number ? number.doubleValue() : otherwise;
    }

    /** The document's entity graph as the projection holds it, and its GT-Links to the document's tree nodes. */
    private EntityGraph read(String docKey) {
        Map<String, Integer> position = new HashMap<>();
        List<Node> nodes = new ArrayList<>();
        try (ResourceIterator<Node> found = tx.findNodes(ENTITY, "doc_key", docKey)) {
            while (found.hasNext()) {
                Node node = found.next();
                position.put((String) node.getProperty("key"), nodes.size());
                nodes.add(node);
            }
        }
        int n = nodes.size();
        List<int[]> ends = new ArrayList<>(); // [source, target], each edge once
        List<Double> weights = new ArrayList<>();
        double[] outWeight = new double[n];
        int[] degree = new int[n];
        Map<String, List<Integer>> links = new HashMap<>();
        for (int u = 0; u < n; u++) {
            for (Relationship r : nodes.get(u).getRelationships(Direction.OUTGOING, EDGES)) {
                Integer v = position.get((String) r.getEndNode().getProperty("key", ""));
                if (v == null || !docKey.equals(r.getEndNode().getProperty("doc_key", null))) {
                    continue;
                }
                Object w = r.getProperty("weight", null);
                double weight = w instanceof Number number ? number.doubleValue() : 1.0;
                ends.add(new int[] {u, v});
                weights.add(weight);
                outWeight[u] += weight;
                outWeight[v] += weight;
                degree[u]++;
                degree[v]++;
            }
            for (Relationship r : nodes.get(u).getRelationships(Direction.OUTGOING, MENTIONED_IN)) {
                Node tree = r.getEndNode();
                if (tree.hasLabel(TREE_NODE) && docKey.equals(tree.getProperty("doc_key", null))) {
                    links.computeIfAbsent((String) tree.getProperty("key"), k -> new ArrayList<>()).add(u);
                }
            }
        }
        int[] start = new int[n + 1];
        for (int v = 0; v < n; v++) {
            start[v + 1] = start[v] + degree[v];
        }
        int[] fill = start.clone();
        int[] from = new int[start[n]];
        double[] share = new double[start[n]];
        for (int i = 0; i < ends.size(); i++) {
            int u = ends.get(i)[0];
            int v = ends.get(i)[1];
            double w = weights.get(i);
            from[fill[v]] = u; // v receives from u
            share[fill[v]++] = outWeight[u] > 0 ? w / outWeight[u] : w;
            from[fill[u]] = v; // and u from v: undirected
            share[fill[u]++] = outWeight[v] > 0 ? w / outWeight[v] : w;
        }
        Map<String, int[]> linked = new HashMap<>();
        links.forEach((key, entities) -> linked.put(key, entities.stream().mapToInt(Integer::intValue).toArray()));
        return new EntityGraph(position, start, from, share, linked);
    }
}
