// The variable lab: every worked number of docs/semantics.md §1–3 and §6.7 (central storage), the
// rejections and int32/float32 handling (scripts: test_varlab_script.cpp).
#include "distlab/distribute/distributed_variable.hpp"

#include <QtTest>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

using namespace distlab;
using Values = std::vector<double>;

namespace {

QString show(const Values& values) {
    QStringList parts;
    for (const double value : values) parts << QString::number(value, 'g', 17);
    return "[" + parts.join(", ") + "]";
}

DistributedVariable makeVariable(VariableStrategy strategy, int replicas, Synchronization sync, Aggregation aggregation, double initial,
                                 DType dtype = DType::Float32) {
    VariableSpec spec;
    spec.synchronization = sync;
    spec.aggregation = aggregation;
    spec.initial = initial;
    spec.dtype = dtype;
    auto created = DistributedVariable::create(spec, strategy, replicas);
    if (!created.ok()) qFatal("creation failed: %s", created.error().message.c_str());
    return std::move(created.value());
}

DistributedVariable mirrored(Aggregation aggregation, double initial, int replicas = 2, DType dtype = DType::Float32) {
    return makeVariable(VariableStrategy::Mirrored, replicas, Synchronization::OnWrite, aggregation, initial, dtype);
}

DistributedVariable syncOnRead(Aggregation aggregation, double initial, int replicas = 2, DType dtype = DType::Float32) {
    return makeVariable(VariableStrategy::Mirrored, replicas, Synchronization::OnRead, aggregation, initial, dtype);
}

std::string createError(VariableStrategy strategy, Synchronization sync, Aggregation aggregation, DType dtype = DType::Float32,
                        std::optional<bool> trainable = std::nullopt, int replicas = 2) {
    VariableSpec spec;
    spec.synchronization = sync;
    spec.aggregation = aggregation;
    spec.dtype = dtype;
    spec.trainable = trainable;
    auto created = DistributedVariable::create(spec, strategy, replicas);
    return created.ok() ? std::string() : created.error().message;
}

const Aggregation kAllAggregations[] = {Aggregation::None, Aggregation::Sum, Aggregation::Mean, Aggregation::OnlyFirstReplica};

}  // namespace

// Exact comparison with both sides printed on failure.
#define COMPARE_VALUES(actual, ...)                                                                                            \
    do {                                                                                                                       \
        const Values expectedValues_{__VA_ARGS__};                                                                             \
        const Values actualValues_ = (actual);                                                                                 \
        QVERIFY2(actualValues_ == expectedValues_, qPrintable(show(actualValues_) + " != expected " + show(expectedValues_))); \
    } while (0)

class TestVarlab : public QObject {
    Q_OBJECT

private slots:
    // ---- docs/semantics.md §1: creation ----
    void noneSynchronizationIsRejectedUnderAStrategy() {
        for (auto strategy : {VariableStrategy::Mirrored, VariableStrategy::CentralStorage, VariableStrategy::ParameterServer}) {
            const std::string error = createError(strategy, Synchronization::None, Aggregation::None);
            QVERIFY2(error.find("not supported with a distribution strategy") != std::string::npos, error.c_str());
        }
    }

    void meanWithInt32IsRejectedAtCreation() {
        for (auto sync : {Synchronization::Auto, Synchronization::OnWrite, Synchronization::OnRead}) {
            const std::string error = createError(VariableStrategy::Mirrored, sync, Aggregation::Mean, DType::Int32);
            QVERIFY2(error.find("mean is not supported for an int32 variable") != std::string::npos, error.c_str());
        }
        QVERIFY(!createError(VariableStrategy::CentralStorage, Synchronization::Auto, Aggregation::Mean, DType::Int32).empty());
        // The other aggregations are fine with int32, and mean is fine with float32.
        QCOMPARE(createError(VariableStrategy::Mirrored, Synchronization::OnWrite, Aggregation::Sum, DType::Int32), std::string());
        QCOMPARE(createError(VariableStrategy::Mirrored, Synchronization::OnRead, Aggregation::Mean), std::string());
    }

    void everyOtherPairIsLegalAndKindsFollowSynchronization() {
        for (auto aggregation : kAllAggregations) {
            for (auto sync : {Synchronization::Auto, Synchronization::OnWrite, Synchronization::OnRead}) {
                const auto v = makeVariable(VariableStrategy::Mirrored, 3, sync, aggregation, 1.5);
                QVERIFY(v.kind() == (sync == Synchronization::OnRead ? VariableKind::SyncOnRead : VariableKind::Mirrored));
                COMPARE_VALUES(v.copies(), 1.5, 1.5, 1.5);  // every copy starts equal, on_read included
                QCOMPARE(v.trainable(), sync != Synchronization::OnRead);
            }
        }
    }

    void trainableOnReadIsRejected() {
        const std::string error = createError(VariableStrategy::Mirrored, Synchronization::OnRead, Aggregation::Sum, DType::Float32, true);
        QVERIFY2(error.find("only for non-trainable variables") != std::string::npos, error.c_str());
        QCOMPARE(createError(VariableStrategy::Mirrored, Synchronization::OnRead, Aggregation::Sum, DType::Float32, false), std::string());
        QCOMPARE(createError(VariableStrategy::Mirrored, Synchronization::OnWrite, Aggregation::Sum, DType::Float32, true), std::string());
    }

    void replicaCountIsChecked() {
        QVERIFY(!createError(VariableStrategy::Mirrored, Synchronization::Auto, Aggregation::Sum, DType::Float32, std::nullopt, 0).empty());
        QVERIFY(!createError(VariableStrategy::Mirrored, Synchronization::Auto, Aggregation::Sum, DType::Float32, std::nullopt,
                             kMaxLabReplicas + 1)
                     .empty());
        QVERIFY(
            !createError(VariableStrategy::OneDevice, Synchronization::Auto, Aggregation::Sum, DType::Float32, std::nullopt, 2).empty());
    }

    void int32InitialMustBeAWholeNumber() {
        VariableSpec spec;
        spec.dtype = DType::Int32;
        spec.initial = 1.5;
        auto created = DistributedVariable::create(spec, VariableStrategy::Mirrored, 2);
        QVERIFY(!created.ok());
        QCOMPARE(created.error().message, std::string("initial value: 1.5 cannot be converted to int32 (not a whole number)"));
    }

    void float32RoundsValues() {
        auto v = mirrored(Aggregation::Sum, 0.1);
        COMPARE_VALUES(v.copies(), double(0.1f), double(0.1f));
        QCOMPARE(v.formatValue(v.copies()[0]), std::string("0.1"));
    }

    void oneDeviceIsPlain() {
        // none synchronization and mean + int32 are fine: synchronization and aggregation have no effect.
        auto v = makeVariable(VariableStrategy::OneDevice, 1, Synchronization::None, Aggregation::Mean, 1.0, DType::Int32);
        QVERIFY(v.kind() == VariableKind::Plain);
        QVERIFY(v.updateInReplicaSame(VariableOp::AssignAdd, 2.0).ok);
        COMPARE_VALUES(v.copies(), 3.0);
        auto w = makeVariable(VariableStrategy::OneDevice, 1, Synchronization::OnRead, Aggregation::None, 1.0);
        QVERIFY(w.kind() == VariableKind::Plain);
        const auto read = w.readCrossReplica();  // no "NONE to a reduce op" error: it is plain
        QVERIFY(read.ok);
        COMPARE_VALUES(read.readValues, 1.0);
        auto s = makeVariable(VariableStrategy::OneDevice, 1, Synchronization::Auto, Aggregation::Sum, 1.0);
        QVERIFY(s.updateInReplicaSame(VariableOp::AssignAdd, 1.0).ok);  // no non-distributed SUM error
        QVERIFY(s.updateCrossReplica(VariableOp::AssignSub, 0.5).ok);
        COMPARE_VALUES(s.copies(), 1.5);
    }

    // ---- docs/semantics.md §2: mirrored, the whole table ----
    void mirroredTable_data() {
        QTest::addColumn<int>("call");
        QTest::addColumn<int>("aggregation");
        QTest::addColumn<QList<double>>("expected");  // empty: rejected
        const char* calls[] = {"add [1,2]", "add per-replica [1,1]", "add same 1.0", "assign [1,2]"};
        const QList<QList<double>> table[] = {
            {{2, 3}, {4, 4}, {2.5, 2.5}, {2, 2}},
            {{2, 2}, {3, 3}, {2, 2}, {2, 2}},
            {{2, 2}, {}, {2, 2}, {2, 2}},
            {{1, 2}, {3, 3}, {1.5, 1.5}, {1, 1}},
        };
        const char* names[] = {"none", "sum", "mean", "only_first_replica"};
        for (int call = 0; call < 4; ++call)
            for (int aggregation = 0; aggregation < 4; ++aggregation)
                QTest::newRow((std::string(calls[call]) + ", " + names[aggregation]).c_str())
                    << call << aggregation << table[call][aggregation];
    }

    void mirroredTable() {
        QFETCH(int, call);
        QFETCH(int, aggregation);
        QFETCH(QList<double>, expected);
        auto v = mirrored(kAllAggregations[aggregation], 1.0);
        VariableOpResult result;
        if (call == 0) result = v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0});
        if (call == 1) result = v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 1.0});
        if (call == 2) result = v.updateInReplicaSame(VariableOp::AssignAdd, 1.0);
        if (call == 3) result = v.updateInReplica(VariableOp::Assign, Values{1.0, 2.0});
        if (expected.isEmpty()) {
            QVERIFY(!result.ok);
            QCOMPARE(result.error, std::string("a non-distributed value cannot be reduced with SUM"));
            COMPARE_VALUES(v.copies(), 1.0, 1.0);  // unchanged
            return;
        }
        QVERIFY2(result.ok, result.error.c_str());
        COMPARE_VALUES(result.replicaValues, expected[0], expected[1]);
        COMPARE_VALUES(v.copies(), expected[0], expected[1]);
    }

    void mirroredRuleSaysWhatHappened() {
        auto v = mirrored(Aggregation::Sum, 1.0);
        const auto result = v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0});
        QCOMPARE(result.rule, std::string("mirrored, replica context, aggregation SUM: the per-replica deltas 1 and 2 "
                                          "are summed to 3 and added to every copy"));
        auto m = mirrored(Aggregation::Mean, 1.0);
        QCOMPARE(m.updateInReplica(VariableOp::Assign, Values{1.0, 2.0}).rule,
                 std::string("mirrored, replica context, aggregation MEAN: the per-replica values 1 and 2 are "
                             "averaged to 1.5 and assigned to every copy"));
    }

    void mirroredCrossReplicaIgnoresAggregation() {
        for (auto aggregation : kAllAggregations) {
            auto v = mirrored(aggregation, 1.0);
            QVERIFY(v.updateCrossReplica(VariableOp::AssignAdd, 6.0).ok);
            COMPARE_VALUES(v.copies(), 7.0, 7.0);
            QVERIFY(v.updateCrossReplica(VariableOp::AssignAdd, 2.0).ok);
            COMPARE_VALUES(v.copies(), 9.0, 9.0);
            const auto read = v.readCrossReplica();
            QVERIFY(read.ok);
            COMPARE_VALUES(read.readValues, 9.0);
            QVERIFY(v.updateCrossReplica(VariableOp::AssignSub, 4.0).ok);
            COMPARE_VALUES(v.copies(), 5.0, 5.0);
            QVERIFY(v.updateCrossReplica(VariableOp::Assign, -2.5).ok);
            COMPARE_VALUES(v.copies(), -2.5, -2.5);
        }
    }

    void mirroredNoneDivergesAndReadsReplicaZero() {
        auto v = mirrored(Aggregation::None, 1.0);
        QVERIFY(v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0}).ok);
        COMPARE_VALUES(v.copies(), 2.0, 3.0);
        const auto cross = v.readCrossReplica();
        COMPARE_VALUES(cross.readValues, 2.0);
        const auto local = v.readInReplica();
        COMPARE_VALUES(local.readValues, 2.0, 3.0);
        QVERIFY(v.updateInReplica(VariableOp::AssignSub, Values{0.5, 1.0}).ok);
        COMPARE_VALUES(v.copies(), 1.5, 2.0);
        // A cross-replica assign_add keeps the difference; assign makes them equal again.
        QVERIFY(v.updateCrossReplica(VariableOp::AssignAdd, 1.0).ok);
        COMPARE_VALUES(v.copies(), 2.5, 3.0);
        QVERIFY(v.updateCrossReplica(VariableOp::Assign, 4.0).ok);
        COMPARE_VALUES(v.copies(), 4.0, 4.0);
    }

    void nonDistributedZeroReducesToZero() {
        auto v = mirrored(Aggregation::Sum, 1.0);
        QVERIFY(v.updateInReplicaSame(VariableOp::AssignAdd, 0.0).ok);
        COMPARE_VALUES(v.copies(), 1.0, 1.0);
        QVERIFY(v.updateInReplicaSame(VariableOp::Assign, 0.0).ok);
        COMPARE_VALUES(v.copies(), 0.0, 0.0);
    }

    void sumOfOneSameValueIsFineWithOneReplica() {
        auto v = mirrored(Aggregation::Sum, 1.0, 1);
        QVERIFY(v.updateInReplicaSame(VariableOp::AssignAdd, 1.0).ok);
        COMPARE_VALUES(v.copies(), 2.0);
    }

    void mirroredWithFourReplicas() {
        auto v = mirrored(Aggregation::Mean, 0.0, 4);
        QVERIFY(v.updateInReplica(VariableOp::AssignAdd, Values{1, 2, 3, 4}).ok);
        COMPARE_VALUES(v.copies(), 2.5, 2.5, 2.5, 2.5);
        auto f = mirrored(Aggregation::OnlyFirstReplica, 0.0, 4);
        QVERIFY(f.updateInReplica(VariableOp::AssignSub, Values{3, 2, 1, 0}).ok);
        COMPARE_VALUES(f.copies(), -3.0, -3.0, -3.0, -3.0);
    }

    void mirroredInt32() {
        auto v = mirrored(Aggregation::Sum, 1.0, 2, DType::Int32);
        QVERIFY(v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0}).ok);
        COMPARE_VALUES(v.copies(), 4.0, 4.0);
        const auto fractional = v.updateInReplica(VariableOp::AssignAdd, Values{1.5, 2.0});
        QVERIFY(!fractional.ok);
        QCOMPARE(fractional.error, std::string("1.5 cannot be converted to int32 (not a whole number)"));
        COMPARE_VALUES(v.copies(), 4.0, 4.0);
        // int32 arithmetic wraps around.
        auto w = mirrored(Aggregation::None, 2147483647.0, 2, DType::Int32);
        QVERIFY(w.updateCrossReplica(VariableOp::AssignAdd, 1.0).ok);
        COMPARE_VALUES(w.copies(), -2147483648.0, -2147483648.0);
    }

    void mirroredIncompleteRequestFails() {
        auto v = mirrored(Aggregation::Sum, 1.0);
        const auto wrongCount = v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0, 3.0});
        QVERIFY(!wrongCount.ok);
        COMPARE_VALUES(v.copies(), 1.0, 1.0);
        VariableOpRequest noValue;
        noValue.op = VariableOp::AssignAdd;
        QVERIFY(!v.apply(noValue).ok);
        VariableOpRequest request{UpdateContext::Replica, VariableOp::AssignAdd, {1.0, 2.0}, true};
        QVERIFY(v.apply(request).ok);
        COMPARE_VALUES(v.copies(), 4.0, 4.0);
    }

    // ---- docs/semantics.md §3: sync-on-read ----
    void syncOnReadSumReadsTheSum() {
        auto v = syncOnRead(Aggregation::Sum, 1.0);
        COMPARE_VALUES(v.readCrossReplica().readValues, 2.0);
        const auto assigned = v.updateCrossReplica(VariableOp::Assign, 6.0);
        QVERIFY(assigned.ok);
        COMPARE_VALUES(v.copies(), 3.0, 3.0);
        COMPARE_VALUES(v.readCrossReplica().readValues, 6.0);
        QCOMPARE(assigned.rule, std::string("sync-on-read, cross-replica context, aggregation SUM: every copy becomes "
                                            "6 / 2 = 3, so the SUM reads back 6"));
    }

    void syncOnReadCrossReplicaReads() {
        const Values expected[] = {{}, {3.0}, {1.5}, {1.0}};
        for (int a = 0; a < 4; ++a) {
            auto v = syncOnRead(kAllAggregations[a], 0.0);
            QVERIFY(v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0}).ok);  // replica i adds i + 1
            COMPARE_VALUES(v.copies(), 1.0, 2.0);
            const auto local = v.readInReplica();
            COMPARE_VALUES(local.readValues, 1.0, 2.0);
            const auto read = v.readCrossReplica();
            if (expected[a].empty()) {
                QVERIFY(!read.ok);
                QCOMPARE(read.error, std::string("cannot convert aggregation NONE to a reduce op"));
            } else {
                QVERIFY2(read.ok, read.error.c_str());
                COMPARE_VALUES(read.readValues, expected[a][0]);
            }
            COMPARE_VALUES(v.copies(), 1.0, 2.0);
        }
    }

    void syncOnReadReplicaUpdatesAreLocal() {
        for (auto aggregation : kAllAggregations) {
            auto v = syncOnRead(aggregation, 1.0);
            QVERIFY(v.updateInReplicaSame(VariableOp::AssignAdd, 1.0).ok);  // no SUM error: nothing is reduced
            COMPARE_VALUES(v.copies(), 2.0, 2.0);
            QVERIFY(v.updateInReplica(VariableOp::Assign, Values{5.0, 7.0}).ok);
            COMPARE_VALUES(v.copies(), 5.0, 7.0);
            QVERIFY(v.updateInReplica(VariableOp::AssignSub, Values{1.0, 3.0}).ok);
            COMPARE_VALUES(v.copies(), 4.0, 4.0);
        }
    }

    void syncOnReadCrossReplicaUpdates() {
        for (auto aggregation : {Aggregation::None, Aggregation::Mean, Aggregation::OnlyFirstReplica}) {
            auto v = syncOnRead(aggregation, 1.0);
            QVERIFY(v.updateCrossReplica(VariableOp::Assign, 6.0).ok);
            COMPARE_VALUES(v.copies(), 6.0, 6.0);
            QVERIFY(v.updateCrossReplica(VariableOp::AssignAdd, 2.0).ok);
            COMPARE_VALUES(v.copies(), 8.0, 8.0);
            QVERIFY(v.updateCrossReplica(VariableOp::AssignSub, 3.0).ok);
            COMPARE_VALUES(v.copies(), 5.0, 5.0);
        }
        auto sum = syncOnRead(Aggregation::Sum, 1.0);
        for (auto op : {VariableOp::AssignAdd, VariableOp::AssignSub}) {
            const auto result = sum.updateCrossReplica(op, 2.0);
            QVERIFY(!result.ok);
            QVERIFY2(result.error.find("aggregation SUM does not support") != std::string::npos, result.error.c_str());
            COMPARE_VALUES(sum.copies(), 1.0, 1.0);
        }
    }

    void syncOnReadInt32SumAssignTruncates() {
        auto v = syncOnRead(Aggregation::Sum, 0.0, 2, DType::Int32);
        const auto result = v.updateCrossReplica(VariableOp::Assign, 7.0);
        QVERIFY(result.ok);
        COMPARE_VALUES(v.copies(), 3.0, 3.0);  // 7 / 2 = 3.5 -> 3
        COMPARE_VALUES(v.readCrossReplica().readValues, 6.0);
        QVERIFY2(result.rule.find("3.5 truncated toward zero") != std::string::npos, result.rule.c_str());
        auto negative = syncOnRead(Aggregation::Sum, 0.0, 3, DType::Int32);
        QVERIFY(negative.updateCrossReplica(VariableOp::Assign, -7.0).ok);
        COMPARE_VALUES(negative.copies(), -2.0, -2.0, -2.0);  // toward zero, not floor
        COMPARE_VALUES(negative.readCrossReplica().readValues, -6.0);
        auto first = syncOnRead(Aggregation::OnlyFirstReplica, 0.0, 2, DType::Int32);
        QVERIFY(first.updateCrossReplica(VariableOp::Assign, 7.0).ok);
        COMPARE_VALUES(first.copies(), 7.0, 7.0);
    }

    // ---- docs/semantics.md §6.7: central storage (and parameter servers: the same single copy) ----
    void centralStorageAggregatesOnce_data() {
        QTest::addColumn<int>("strategy");
        QTest::newRow("central_storage") << int(VariableStrategy::CentralStorage);
        QTest::newRow("parameter_server") << int(VariableStrategy::ParameterServer);
    }

    void centralStorageAggregatesOnce() {
        QFETCH(int, strategy);
        const auto kind = static_cast<VariableStrategy>(strategy);
        const double expected[] = {0.0, 4.0, 2.5, 2.0};  // none is rejected
        for (int a = 0; a < 4; ++a) {
            for (auto sync : {Synchronization::Auto, Synchronization::OnRead}) {
                auto v = makeVariable(kind, 2, sync, kAllAggregations[a], 1.0);
                QVERIFY(v.kind() == VariableKind::Aggregating);
                COMPARE_VALUES(v.copies(), 1.0);
                const auto result = v.updateInReplica(VariableOp::AssignAdd, Values{1.0, 2.0});
                if (a == 0) {
                    QVERIFY(!result.ok);
                    QVERIFY2(result.error.find("needs an aggregation method") != std::string::npos, result.error.c_str());
                    COMPARE_VALUES(v.copies(), 1.0);
                    continue;
                }
                QVERIFY2(result.ok, result.error.c_str());
                COMPARE_VALUES(result.replicaValues, expected[a]);
            }
        }
    }

    void centralStorageSameValueAndReads() {
        auto sum = makeVariable(VariableStrategy::CentralStorage, 2, Synchronization::Auto, Aggregation::Sum, 1.0);
        const auto rejected = sum.updateInReplicaSame(VariableOp::AssignAdd, 1.0);
        QCOMPARE(rejected.error, std::string("a non-distributed value cannot be reduced with SUM"));
        auto mean = makeVariable(VariableStrategy::CentralStorage, 2, Synchronization::Auto, Aggregation::Mean, 1.0);
        QVERIFY(mean.updateInReplicaSame(VariableOp::AssignAdd, 1.0).ok);
        COMPARE_VALUES(mean.copies(), 2.0);
        QVERIFY(mean.updateCrossReplica(VariableOp::AssignAdd, 6.0).ok);  // applied once
        COMPARE_VALUES(mean.copies(), 8.0);
        COMPARE_VALUES(mean.readInReplica().readValues, 8.0, 8.0);  // every replica reads the one copy
        COMPARE_VALUES(mean.readCrossReplica().readValues, 8.0);
        auto none = makeVariable(VariableStrategy::CentralStorage, 2, Synchronization::Auto, Aggregation::None, 1.0);
        QVERIFY(none.updateCrossReplica(VariableOp::Assign, 3.0).ok);  // fine outside the step
        COMPARE_VALUES(none.copies(), 3.0);
    }
};

QTEST_APPLESS_MAIN(TestVarlab)
#include "test_varlab.moc"
