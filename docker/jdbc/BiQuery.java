/*
 * A BI client's path into the BookIndex: the Neo4j JDBC driver runs a query of cypher/bi/ (Cypher, named
 * parameters) or a SQL SELECT (SQL translation), and prints the result as a tab-separated table: a header line
 * with the column labels, then one line a row. Java 17 runs this single file as it is, no build:
 *
 *   export NEO4J_USERNAME=neo4j NEO4J_PASSWORD=...
 *   java -cp neo4j-jdbc-full-bundle.jar docker/jdbc/BiQuery.java jdbc:neo4j://localhost:7687/neo4j \
 *       cypher/bi/sections.cypher doc=R-intro.pdf
 *   java -cp neo4j-jdbc-full-bundle.jar docker/jdbc/BiQuery.java \
 *       'jdbc:neo4j://localhost:7687/neo4j?enableSQLTranslation=true' --sql 'SELECT name FROM Document'
 *
 * `make jdbc` fetches the driver from Maven Central into ~/.cache/bookrag-neo4j/jdbc/.
 */

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.neo4j.jdbc.Neo4jPreparedStatement;

public final class BiQuery {

	public static void main(String[] args) throws Exception {
		if (args.length < 2) {
			System.err.println("usage: BiQuery JDBC_URL (QUERY.cypher [name=value ...] | --sql SELECT)");
			System.exit(2);
		}
		String user = System.getenv().getOrDefault("NEO4J_USERNAME", "neo4j");
		String password = System.getenv().getOrDefault("NEO4J_PASSWORD", "");
		try (Connection connection = DriverManager.getConnection(args[0], user, password)) {
			connection.setReadOnly(true);
			if (args[1].equals("--sql")) {
				try (var statement = connection.createStatement(); var rows = statement.executeQuery(args[2])) {
					print(rows);
				}
			} else {
				String cypher = Files.readString(Path.of(args[1]));
				try (var statement = connection.prepareStatement(cypher).unwrap(Neo4jPreparedStatement.class)) {
					for (int i = 2; i < args.length; i++) {
						String[] parameter = args[i].split("=", 2);
						statement.setString(parameter[0], parameter[1]);
					}
					try (var rows = statement.executeQuery()) {
						print(rows);
					}
				}
			}
		}
		catch (SQLException ex) {
			System.err.println("BiQuery: " + ex.getMessage());
			System.exit(1);
		}
	}

	private static void print(ResultSet rows) throws SQLException {
		var meta = rows.getMetaData();
		List<String> cells = new ArrayList<>();
		for (int column = 1; column <= meta.getColumnCount(); column++) {
			cells.add(meta.getColumnLabel(column));
		}
		System.out.println(String.join("\t", cells));
		while (rows.next()) {
			cells.clear();
			for (int column = 1; column <= meta.getColumnCount(); column++) {
				String value = rows.getString(column);
				cells.add(value == null ? "" : value.replace('\t', ' ').replace('\n', ' '));
			}
			System.out.println(String.join("\t", cells));
		}
	}

}
