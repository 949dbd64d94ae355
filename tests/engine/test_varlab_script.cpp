// The variable lab's scripts (the format of docs/interfaces.md §10) run through runVarlabScript: the
// JSON they print, and a clear error for every malformed script (variables: test_varlab.cpp).
#include "distlab/distribute/varlab_script.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

using namespace distlab;

namespace {

nlohmann::json runScript(const std::string& text) {
    auto output = runVarlabScript(text, "s.json");
    if (!output.ok()) qFatal("script failed: %s", output.error().message.c_str());
    return nlohmann::json::parse(output.value());
}

std::string scriptError(const std::string& text) {
    auto output = runVarlabScript(text, "s.json");
    return output.ok() ? std::string("(no error)") : output.error().message;
}

}  // namespace

#define COMPARE_JSON(actual, expected)                                                                                 \
    do {                                                                                                               \
        const nlohmann::json actualJson_ = (actual);                                                                   \
        const nlohmann::json expectedJson_ = (expected);                                                               \
        QVERIFY2(actualJson_ == expectedJson_, (actualJson_.dump() + " != expected " + expectedJson_.dump()).c_str()); \
    } while (0)

class TestVarlabScript : public QObject {
    Q_OBJECT

private slots:
    // ---- scripts ----
    void interfacesExampleScript() {
        const auto out = runScript(R"({
          "strategy": "mirrored", "replicas": 2,
          "variables": [{"name": "v", "synchronization": "on_write", "aggregation": "sum",
                         "initial": 1.0, "dtype": "float32"}],
          "ops": [
            {"context": "replica", "op": "assign_add", "var": "v", "values": [1.0, 2.0]},
            {"context": "replica", "op": "assign_add", "var": "v", "value": 1.0},
            {"context": "cross_replica", "op": "assign", "var": "v", "value": 6.0},
            {"context": "cross_replica", "op": "read", "var": "v"},
            {"context": "replica", "op": "read", "var": "v"}
          ]})");
        QCOMPARE(out.size(), std::size_t{2});
        QCOMPARE(out["variables"].size(), std::size_t{1});
        COMPARE_JSON(out["variables"][0]["name"], nlohmann::json("v"));
        COMPARE_JSON(out["variables"][0]["ok"], nlohmann::json(true));
        COMPARE_JSON(out["variables"][0]["kind"], nlohmann::json("mirrored"));
        const auto& results = out["results"];
        QCOMPARE(results.size(), std::size_t{5});
        COMPARE_JSON(results[0]["ok"], nlohmann::json(true));
        COMPARE_JSON(results[0]["replica_values"], nlohmann::json::parse("[4.0, 4.0]"));
        QVERIFY(!results[0].contains("read"));
        QVERIFY(results[0]["rule"].get<std::string>().find("summed to 3") != std::string::npos);
        COMPARE_JSON(results[1]["ok"], nlohmann::json(false));
        COMPARE_JSON(results[1]["error"], nlohmann::json("a non-distributed value cannot be reduced with SUM"));
        QVERIFY(!results[1].contains("replica_values"));
        COMPARE_JSON(results[2]["replica_values"], nlohmann::json::parse("[6.0, 6.0]"));
        COMPARE_JSON(results[3]["read"], nlohmann::json(6.0));
        COMPARE_JSON(results[3]["replica_values"], nlohmann::json::parse("[6.0, 6.0]"));
        COMPARE_JSON(results[4]["read"], nlohmann::json::parse("[6.0, 6.0]"));
    }

    void syncOnReadInt32Script() {
        const auto out = runScript(R"({"strategy": "mirrored", "replicas": 2,
          "variables": [{"name": "n", "synchronization": "on_read", "aggregation": "sum", "dtype": "int32"},
                        {"name": "bad", "synchronization": "on_read", "aggregation": "mean", "dtype": "int32"}],
          "ops": [
            {"context": "replica", "op": "assign_add", "var": "n", "values": [1, 2]},
            {"context": "cross_replica", "op": "read", "var": "n"},
            {"context": "cross_replica", "op": "assign", "var": "n", "value": 7},
            {"context": "cross_replica", "op": "read", "var": "n"},
            {"context": "cross_replica", "op": "assign_add", "var": "n", "value": 1},
            {"context": "replica", "op": "read", "var": "bad"}
          ]})");
        COMPARE_JSON(out["variables"][0]["kind"], nlohmann::json("sync_on_read"));
        COMPARE_JSON(out["variables"][1]["ok"], nlohmann::json(false));
        QVERIFY(out["variables"][1]["error"].get<std::string>().find("mean") != std::string::npos);
        const auto& results = out["results"];
        COMPARE_JSON(results[0]["replica_values"], nlohmann::json::parse("[1, 2]"));
        QVERIFY(results[0]["replica_values"][0].is_number_integer());  // int32 prints as integers
        COMPARE_JSON(results[1]["read"], nlohmann::json(3));
        QVERIFY(results[1]["read"].is_number_integer());
        COMPARE_JSON(results[2]["replica_values"], nlohmann::json::parse("[3, 3]"));
        COMPARE_JSON(results[3]["read"], nlohmann::json(6));
        COMPARE_JSON(results[4]["ok"], nlohmann::json(false));
        COMPARE_JSON(results[5]["ok"], nlohmann::json(false));
        QVERIFY(results[5]["error"].get<std::string>().find("was not created") != std::string::npos);
        // The int32 output text carries integers, not 3.0.
        const std::string text = runVarlabScript(R"({"variables": [{"name": "n", "dtype": "int32", "initial": 3,
            "aggregation": "sum"}]})",
                                                 "s.json")
                                     .value();
        QVERIFY2(text.find("\"replica_values\":[3,3]") != std::string::npos, text.c_str());
    }

    void centralStorageAndOneDeviceScripts() {
        const auto central = runScript(R"({"strategy": "central_storage", "replicas": 2,
          "variables": [{"name": "w", "aggregation": "mean", "initial": 1.0},
                        {"name": "z", "synchronization": "none"}],
          "ops": [{"context": "replica", "op": "assign_add", "var": "w", "values": [1.0, 2.0]},
                  {"context": "replica", "op": "read", "var": "w"}]})");
        COMPARE_JSON(central["variables"][0]["kind"], nlohmann::json("aggregating"));
        COMPARE_JSON(central["variables"][1]["ok"], nlohmann::json(false));
        COMPARE_JSON(central["results"][0]["replica_values"], nlohmann::json::parse("[2.5]"));
        COMPARE_JSON(central["results"][1]["read"], nlohmann::json::parse("[2.5, 2.5]"));
        const auto plain = runScript(R"({"strategy": "one_device", "replicas": 1,
          "variables": [{"name": "p", "synchronization": "on_read", "initial": 0.1}],
          "ops": [{"context": "cross_replica", "op": "read", "var": "p"},
                  {"context": "replica", "op": "assign_add", "var": "p", "values": [0.2]}]})");
        COMPARE_JSON(plain["variables"][0]["kind"], nlohmann::json("plain"));
        COMPARE_JSON(plain["results"][0]["read"], nlohmann::json(0.1));  // float32's shortest decimal
        COMPARE_JSON(plain["results"][1]["replica_values"], nlohmann::json::parse("[0.3]"));
    }

    void malformedScripts_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("error");
        QTest::newRow("bad json") << R"({"replicas": 2,})"
                                  << "s.json: byte 16 (line 1, column 16): syntax error: while parsing "
                                     "object key - unexpected '}'; expected string literal";
        QTest::newRow("bad json line 2") << "{\n  \"replicas\" 2}"
                                         << "s.json: byte 16 (line 2, column 14): syntax error: while "
                                            "parsing object separator - unexpected number literal; expected ':'";
        QTest::newRow("number overflow") << R"({"replicas": 1e999})"
                                         << "s.json: byte 18 (line 1, column 18): number overflow "
                                            "parsing '1e999'";
        QTest::newRow("empty") << ""
                               << "s.json: byte 1 (line 1, column 1): syntax error: while parsing "
                                  "value - unexpected end of input; expected '[', '{', or a literal";
        QTest::newRow("key twice") << R"({"replicas": 2, "replicas": 3})"
                                   << "s.json: replicas: key appears twice in the same object";
        QTest::newRow("not an object") << "[1]"
                                       << "s.json: (top level): expected an object, got array";
        QTest::newRow("unknown top key") << R"({"replica": 2})"
                                         << "s.json: replica: unknown key";
        QTest::newRow("unknown op key")
            << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "read", "var": "v", "x": 1}]})"
            << "s.json: ops[0].x: unknown key";
        QTest::newRow("unknown variable key") << R"({"variables": [{"name": "v", "sync": "on_read"}]})"
                                              << "s.json: variables[0].sync: unknown key";
        QTest::newRow("values wrong length") << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "assign", "var": "v",
                  "values": [1, 2, 3]}]})"
                                             << "s.json: ops[0].values: expected 2 values (one per replica), got 3";
        QTest::newRow("undeclared variable")
            << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "read", "var": "w"}]})"
            << "s.json: ops[0].var: variable \"w\" is not declared in variables";
        QTest::newRow("replicas zero") << R"({"replicas": 0})"
                                       << "s.json: replicas: must be between 1 and 1024 (got 0)";
        QTest::newRow("replicas huge") << R"({"replicas": 99999999999999999999})"
                                       << "s.json: replicas: must be between 1 and 1024 (got 1e+20)";
        QTest::newRow("replicas fraction") << R"({"replicas": 1.5})"
                                           << "s.json: replicas: expected an integer, got 1.5";
        QTest::newRow("replicas string") << R"({"replicas": "2"})"
                                         << "s.json: replicas: expected an integer, got string";
        QTest::newRow("one_device replicas") << R"({"strategy": "one_device", "replicas": 2})"
                                             << "s.json: replicas: one_device runs exactly one replica (got 2)";
        QTest::newRow("bad strategy") << R"({"strategy": "tpu"})"
                                      << "s.json: strategy: unknown value \"tpu\" (expected one_device, mirrored, "
                                         "central_storage or parameter_server)";
        QTest::newRow("bad op") << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "add", "var": "v"}]})"
                                << "s.json: ops[0].op: unknown value \"add\" (expected assign, assign_add, assign_sub or read)";
        QTest::newRow("bad context") << R"({"variables": [{"name": "v"}], "ops": [{"context": "cross", "op": "read", "var": "v"}]})"
                                     << "s.json: ops[0].context: unknown value \"cross\" (expected replica or cross_replica)";
        QTest::newRow("missing value") << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "assign", "var": "v"}]})"
                                       << "s.json: ops[0]: assign needs either value or values";
        QTest::newRow("values across replicas")
            << R"({"variables": [{"name": "v"}], "ops": [{"context": "cross_replica", "op": "assign", "var": "v",
                  "values": [1, 2]}]})"
            << "s.json: ops[0].values: per-replica values are only allowed in replica context (use value)";
        QTest::newRow("value not a number") << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "assign", "var": "v",
                  "values": [1, true]}]})"
                                            << "s.json: ops[0].values[1]: expected a number, got boolean";
        QTest::newRow("read with value")
            << R"({"variables": [{"name": "v"}], "ops": [{"context": "replica", "op": "read", "var": "v", "value": 1}]})"
            << "s.json: ops[0]: read takes no value or values";
        QTest::newRow("duplicate variable") << R"({"variables": [{"name": "v"}, {"name": "v"}]})"
                                            << "s.json: variables[1].name: variable \"v\" is declared twice";
        QTest::newRow("missing name") << R"({"variables": [{"initial": 1}]})"
                                      << "s.json: variables[0]: missing key \"name\"";
        QTest::newRow("bad dtype") << R"({"variables": [{"name": "v", "dtype": "float64"}]})"
                                   << "s.json: variables[0].dtype: unknown value \"float64\" (expected float32 or int32)";
    }

    void malformedScripts() {
        QFETCH(QString, script);
        QFETCH(QString, error);
        QCOMPARE(QString::fromStdString(scriptError(script.toStdString())), error);
    }

    void brokenUtf8IsReportedPrintably() {
        QCOMPARE(scriptError("{\"variables\": [{\"name\": \"\xc3(\"}]}"),
                 std::string("s.json: byte 27 (line 1, column 27): syntax error: while parsing value - "
                             "invalid string: ill-formed UTF-8 byte; last read: '\"\\xc3('"));
    }

    void everyPrefixOfAScriptIsHandled() {
        // Truncated files must give an error, never a crash or a hang.
        const std::string text = R"({"strategy": "mirrored", "replicas": 2, "variables": [{"name": "v",
            "synchronization": "on_read", "aggregation": "sum", "initial": 1.0}], "ops": [{"context": "replica",
            "op": "assign_add", "var": "v", "values": [1.0, 2.0]}, {"context": "cross_replica", "op": "read",
            "var": "v"}]})";
        for (std::size_t length = 0; length < text.size(); ++length) {
            const auto result = runVarlabScript(std::string_view(text).substr(0, length), "s.json");
            QVERIFY(!result.ok());
            QVERIFY(result.error().message.rfind("s.json: ", 0) == 0);
        }
        QVERIFY(runVarlabScript(text, "s.json").ok());
    }
};

QTEST_APPLESS_MAIN(TestVarlabScript)
#include "test_varlab_script.moc"
