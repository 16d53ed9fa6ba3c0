package io.github.bookrag;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.storageengine.api.TransactionIdStore;

/**
 * What a procedure read of one document, kept between calls within a byte budget (least recently used out) and
 * stamped with the id of the last transaction closed before it was read: any later commit (a re-indexed document
 * among them) makes every entry stale, so nothing served from here is older than the store.
 */
final class StampedCache<T> {
    /** A value read, its size in bytes and the stamp it was read at. */
    private record Entry<T>(T value, long bytes, long stamp) {}

    private final LinkedHashMap<String, Entry<T>> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final long budgetBytes;
    private long heldBytes = 0;

    StampedCache(long budgetBytes) {
        this.budgetBytes = budgetBytes;
    }

    /** The value under {@code slot} of database {@code db}: the cached one when no transaction closed since it was
     *  read, else {@code read} now, kept when no transaction closed meanwhile and it fits the budget. */
    T get(GraphDatabaseAPI db, String slot, Supplier<T> read, java.util.function.ToLongFunction<T> bytes) {
        TransactionIdStore ids = db.getDependencyResolver().resolveDependency(TransactionIdStore.class);
        long stamp = ids.getLastClosedTransactionId();
        String key = db.databaseName() + "\u0000" + slot;
        synchronized (this) {
            Entry<T> cached = entries.get(key);
            if (cached != null && cached.stamp == stamp) {
                return cached.value;
            }
        }
        T value = read.get();
        long size = bytes.applyAsLong(value);
        if (ids.getLastClosedTransactionId() == stamp && size <= budgetBytes) {
            synchronized (this) {
                Entry<T> old = entries.put(key, new Entry<>(value, size, stamp));
                heldBytes += size - (old == null ? 0 : old.bytes);
                var eldest = entries.entrySet().iterator();
                while (heldBytes > budgetBytes && eldest.hasNext()) {
                    Map.Entry<String, Entry<T>> out = eldest.next();
                    heldBytes -= out.getValue().bytes;
                    eldest.remove();
                }
            }
        }
        return value;
    }
}
