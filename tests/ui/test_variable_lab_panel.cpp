// The variable lab panel driven as a user would, offscreen: the worked numbers of docs/semantics.md §2
// (mirrored, every aggregation, per-replica and constant arguments, cross-replica updates), a
// sync-on-read example of docs/semantics.md §3, central storage (docs/semantics.md §6.7), rejected
// creations, remove, clear and reset.
#include <QtTest>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>

#include "run_palette.hpp"
#include "varlab/op_bar.hpp"
#include "varlab/op_log.hpp"
#include "varlab/variable_card.hpp"
#include "varlab/variable_form.hpp"
#include "varlab/variable_lab_panel.hpp"

using namespace distlab;
using namespace distlab::ui;

namespace {

void choose(QComboBox& box, const QString& text) {
    const int index = box.findText(text);
    QVERIFY2(index >= 0, qPrintable(QStringLiteral("no item \"%1\" in %2").arg(text, box.objectName())));
    box.setCurrentIndex(index);
}

struct Creation {
    QString strategy = QStringLiteral("mirrored");
    int replicas = 2;
    QString name = QStringLiteral("v");
    QString synchronization = QStringLiteral("auto");
    QString aggregation = QStringLiteral("none");
    QString dtype = QStringLiteral("float32");
    double initial = 1.0;
};

// Fills the "New variable" form and presses Create.
void create(VariableLabPanel& panel, const Creation& c) {
    VariableForm& form = panel.form();
    choose(form.strategyBox(), c.strategy);
    form.replicasBox().setValue(c.replicas);
    form.nameEdit().setText(c.name);
    choose(form.synchronizationBox(), c.synchronization);
    choose(form.aggregationBox(), c.aggregation);
    choose(form.dtypeBox(), c.dtype);
    form.initialBox().setValue(c.initial);
    QTest::mouseClick(&form.createButton(), Qt::LeftButton);
}

// Sets the op bar and presses Apply. `values`: one per replica (per-replica argument) or one value.
void apply(VariableLabPanel& panel, const QString& variable, const QString& context, const QString& op, const QList<double>& values = {},
           bool perReplica = true) {
    OpBar& bar = panel.opBar();
    choose(bar.variableBox(), variable);
    choose(bar.contextBox(), context);
    choose(bar.opBox(), op);
    bar.argumentBox().setCurrentIndex(
        bar.argumentBox().findData(static_cast<int>(perReplica ? OpBar::Argument::PerReplica : OpBar::Argument::SameOnEveryReplica)));
    if (perReplica && context == QLatin1String("replica")) {
        for (int i = 0; i < values.size(); ++i) {
            QVERIFY(bar.replicaValueBox(i).isVisibleTo(&panel));
            bar.replicaValueBox(i).setValue(values[i]);
        }
    } else if (!values.isEmpty()) {
        QVERIFY(bar.valueBox().isVisibleTo(&panel));
        bar.valueBox().setValue(values[0]);
    }
    QTest::mouseClick(&bar.applyButton(), Qt::LeftButton);
}

QStringList texts(std::initializer_list<const char*> values) {
    QStringList list;
    for (const char* value : values) list.append(QString::fromLatin1(value));
    return list;
}

}  // namespace

class TestVariableLabPanel : public QObject {
    Q_OBJECT

private slots:
    void emptyStateSaysWhatToDo() {
        VariableLabPanel panel;
        panel.show();
        QVERIFY(panel.emptyStateShown());
        QVERIFY(!panel.opBar().isEnabled());
        QCOMPARE(panel.logEntryCount(), 0);
        create(panel, {});
        QVERIFY(!panel.emptyStateShown());
        QVERIFY(panel.opBar().isEnabled());
        QCOMPARE(panel.variableNames(), texts({"v"}));
        QCOMPARE(panel.kindText("v"), QStringLiteral("mirrored"));
        QCOMPARE(panel.copyTexts("v"), texts({"1", "1"}));
        QVERIFY(!panel.lastLogEntryIsError());
        QVERIFY2(panel.lastLogEntry().contains("synchronization auto means on_write"), qPrintable(panel.lastLogEntry()));
        // The next name is proposed so a second Create does not collide.
        QCOMPARE(panel.form().nameEdit().text(), QStringLiteral("w"));
    }

    void mirroredPerReplicaAssignAdd_data() {
        QTest::addColumn<QString>("aggregation");
        QTest::addColumn<QStringList>("copies");
        QTest::addColumn<bool>("diverged");
        QTest::addColumn<QString>("read");
        QTest::newRow("none") << "none" << texts({"2", "3"}) << true << "2";
        QTest::newRow("sum") << "sum" << texts({"4", "4"}) << false << "4";
        QTest::newRow("mean") << "mean" << texts({"2.5", "2.5"}) << false << "2.5";
        QTest::newRow("only_first_replica") << "only_first_replica" << texts({"2", "2"}) << false << "2";
    }

    // docs/semantics.md §2, first row: 2 replicas from 1.0, assign_add with per-replica t = [1, 2].
    void theChangedCardStaysInView() {
        // Many variables in a short panel: whichever card an op changes is scrolled into view.
        VariableLabPanel panel;
        panel.resize(1000, 560);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QStringList names = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"};
        for (const QString& name : names) {
            Creation c;
            c.name = name;
            create(panel, c);
        }
        QCoreApplication::processEvents();
        for (const QString& name : {QStringLiteral("v7"), QStringLiteral("v0"), QStringLiteral("v5"), QStringLiteral("v1")}) {
            apply(panel, name, "replica", "assign_add", {1.0, 2.0});
            QCoreApplication::processEvents();
            QVERIFY2(panel.cardInView(name), qPrintable(name));
        }
        // Not every card fits at once, so the scrolling was needed.
        int inView = 0;
        for (const QString& name : names) inView += panel.cardInView(name) ? 1 : 0;
        QVERIFY2(inView < names.size(), qPrintable(QString::number(inView)));
    }

    void mirroredPerReplicaAssignAdd() {
        QFETCH(QString, aggregation);
        QFETCH(QStringList, copies);
        QFETCH(bool, diverged);
        QFETCH(QString, read);
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.aggregation = aggregation;
        create(panel, c);
        QVERIFY(!panel.divergenceShown("v"));
        apply(panel, "v", "replica", "assign_add", {1.0, 2.0});
        QCOMPARE(panel.copyTexts("v"), copies);
        QVERIFY(!panel.lastLogEntryIsError());
        QCOMPARE(panel.divergenceShown("v"), diverged);
        QCOMPARE(panel.changedCopies("v"), (QList<bool>{true, true}));
        QCOMPARE(panel.readText("v").section(' ', 3, 3), read);
        const QString entry = panel.lastLogEntry();
        QVERIFY2(entry.contains("assign_add, per-replica [1, 2]"), qPrintable(entry));
        QVERIFY2(entry.contains("copies [1, 1] → [" + copies.join(", ") + "]"), qPrintable(entry));
        QVERIFY2(entry.contains("aggregation " + aggregation.toUpper()), qPrintable(entry));
    }

    void mirroredAssignPerReplica_data() {
        QTest::addColumn<QString>("aggregation");
        QTest::addColumn<QStringList>("copies");
        QTest::newRow("none") << "none" << texts({"1", "2"});
        QTest::newRow("sum") << "sum" << texts({"3", "3"});
        QTest::newRow("mean") << "mean" << texts({"1.5", "1.5"});
        QTest::newRow("only_first_replica") << "only_first_replica" << texts({"1", "1"});
    }

    // docs/semantics.md §2, last row: assign with per-replica t = [1, 2].
    void mirroredAssignPerReplica() {
        QFETCH(QString, aggregation);
        QFETCH(QStringList, copies);
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.aggregation = aggregation;
        create(panel, c);
        apply(panel, "v", "replica", "assign", {1.0, 2.0});
        QCOMPARE(panel.copyTexts("v"), copies);
        // Replica 0's copy was 1 and stays 1 except under sum and mean.
        QCOMPARE(panel.changedCopies("v").at(0), copies.at(0) != QLatin1String("1"));
    }

    void sameConstantOnEveryReplica_data() {
        QTest::addColumn<QString>("aggregation");
        QTest::addColumn<QStringList>("copies");
        QTest::addColumn<bool>("rejected");
        QTest::newRow("none") << "none" << texts({"2", "2"}) << false;
        QTest::newRow("sum") << "sum" << texts({"1", "1"}) << true;
        QTest::newRow("mean") << "mean" << texts({"2", "2"}) << false;
        QTest::newRow("only_first_replica") << "only_first_replica" << texts({"2", "2"}) << false;
    }

    // docs/semantics.md §2, third row: assign_add(1.0) with the same constant on every replica.
    void sameConstantOnEveryReplica() {
        QFETCH(QString, aggregation);
        QFETCH(QStringList, copies);
        QFETCH(bool, rejected);
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.aggregation = aggregation;
        create(panel, c);
        apply(panel, "v", "replica", "assign_add", {1.0}, false);
        QCOMPARE(panel.copyTexts("v"), copies);
        QCOMPARE(panel.lastLogEntryIsError(), rejected);
        const QString entry = panel.lastLogEntry();
        QVERIFY2(entry.contains("the same 1 on every replica"), qPrintable(entry));
        if (rejected) {
            QVERIFY2(entry.contains("error: a non-distributed value cannot be reduced with SUM"), qPrintable(entry));
            QVERIFY2(entry.contains("copies unchanged [1, 1]"), qPrintable(entry));
            QCOMPARE(panel.changedCopies("v"), (QList<bool>{false, false}));
        }
    }

    // docs/semantics.md §2: cross-replica 1 → assign_add 6 → [7, 7] → assign_add 2 → [9, 9].
    void crossReplicaAssignAdd() {
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.aggregation = QStringLiteral("sum");  // ignored in cross-replica context
        create(panel, c);
        QVERIFY(panel.opBar().argumentBox().isVisibleTo(&panel));
        apply(panel, "v", "cross-replica", "assign_add", {6.0});
        QVERIFY(!panel.opBar().argumentBox().isVisibleTo(&panel));  // one value only
        QVERIFY(!panel.opBar().replicaValueBox(0).isVisibleTo(&panel));
        QCOMPARE(panel.copyTexts("v"), texts({"7", "7"}));
        apply(panel, "v", "cross-replica", "assign_add", {2.0});
        QCOMPARE(panel.copyTexts("v"), texts({"9", "9"}));
        const QString entry = panel.lastLogEntry();
        QVERIFY2(entry.startsWith("#3 v · cross-replica context · assign_add 2"), qPrintable(entry));
        QVERIFY2(entry.contains("copies [7, 7] → [9, 9]"), qPrintable(entry));
        QVERIFY2(entry.contains("aggregation is ignored"), qPrintable(entry));
        QCOMPARE(panel.logEntryCount(), 3);
        QCOMPARE(panel.log().blockCount(), 3);
        QVERIFY(panel.log().document()->firstBlock().text().startsWith("#3 v"));
    }

    // docs/semantics.md §3: from 0.0 replica i does assign_add(i + 1) → copies [1, 2]; a SUM read gives 3.
    void syncOnReadSum() {
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.synchronization = QStringLiteral("on_read");
        c.aggregation = QStringLiteral("sum");
        c.initial = 0.0;
        create(panel, c);
        QCOMPARE(panel.kindText("v"), QStringLiteral("sync-on-read"));
        apply(panel, "v", "replica", "assign_add", {1.0, 2.0});
        QCOMPARE(panel.copyTexts("v"), texts({"1", "2"}));
        QVERIFY(!panel.divergenceShown("v"));  // sync-on-read copies differ by design
        QCOMPARE(panel.readText("v"), QStringLiteral("Cross-replica read returns 3 (SUM of the copies)"));
        apply(panel, "v", "cross-replica", "read");
        QVERIFY(!panel.opBar().valueBox().isVisibleTo(&panel));  // a read takes no argument
        QVERIFY(!panel.lastLogEntryIsError());
        QVERIFY2(panel.lastLogEntry().contains("read returned 3 · copies [1, 2]"), qPrintable(panel.lastLogEntry()));
        // Cross-replica assign(6) with SUM: every copy becomes 6 / 2, and the read gives 6 back.
        apply(panel, "v", "cross-replica", "assign", {6.0});
        QCOMPARE(panel.copyTexts("v"), texts({"3", "3"}));
        QCOMPARE(panel.readText("v"), QStringLiteral("Cross-replica read returns 6 (SUM of the copies)"));
        apply(panel, "v", "replica", "read");
        QVERIFY2(panel.lastLogEntry().contains("each replica read [3, 3]"), qPrintable(panel.lastLogEntry()));
    }

    void syncOnReadNoneCannotBeRead() {
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.synchronization = QStringLiteral("on_read");
        create(panel, c);
        QVERIFY(panel.readText("v").contains("cannot convert aggregation NONE to a reduce op"));
        apply(panel, "v", "cross-replica", "read");
        QVERIFY(panel.lastLogEntryIsError());
        QVERIFY(panel.lastLogEntry().contains("error: cannot convert aggregation NONE to a reduce op"));
    }

    void rejectedCreationsCreateNothing_data() {
        QTest::addColumn<QString>("synchronization");
        QTest::addColumn<QString>("aggregation");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("error");
        QTest::newRow("none sync") << "none"
                                   << "none"
                                   << "float32"
                                   << "synchronization none is not supported with a distribution strategy";
        QTest::newRow("mean int32") << "auto"
                                    << "mean"
                                    << "int32"
                                    << "aggregation mean is not supported for an int32";
    }

    void rejectedCreationsCreateNothing() {
        QFETCH(QString, synchronization);
        QFETCH(QString, aggregation);
        QFETCH(QString, dtype);
        QFETCH(QString, error);
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.synchronization = synchronization;
        c.aggregation = aggregation;
        c.dtype = dtype;
        create(panel, c);
        QVERIFY(panel.variableNames().isEmpty());
        QVERIFY(panel.emptyStateShown());
        QVERIFY(panel.lastLogEntryIsError());
        QVERIFY2(panel.lastLogEntry().contains("error: " + error), qPrintable(panel.lastLogEntry()));
        QVERIFY(panel.lastLogEntry().contains("nothing was created"));
    }

    void duplicateNameIsRejected() {
        VariableLabPanel panel;
        panel.show();
        create(panel, {});
        create(panel, {});  // the same name "v" typed again
        QCOMPARE(panel.variableNames(), texts({"v"}));
        QVERIFY(panel.lastLogEntryIsError());
        QVERIFY(panel.lastLogEntry().contains("error: v already exists"));
    }

    // docs/semantics.md §6.7: one copy on the parameter device, replica updates aggregated and applied once.
    void centralStorage() {
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.strategy = QStringLiteral("central_storage");
        c.replicas = 4;
        c.aggregation = QStringLiteral("sum");
        create(panel, c);
        QCOMPARE(panel.kindText("v"), QStringLiteral("aggregating"));
        QCOMPARE(panel.copyTexts("v"), texts({"1"}));
        QVERIFY(panel.opBar().replicaValueBox(3).isVisibleTo(&panel));  // four compute replicas
        QVERIFY(!panel.opBar().replicaValueBox(4).isVisibleTo(&panel));
        apply(panel, "v", "replica", "assign_add", {1.0, 2.0, 3.0, 4.0});
        QCOMPARE(panel.copyTexts("v"), texts({"11"}));
        QVERIFY2(panel.lastLogEntry().contains("summed to 10 and added to the single copy once"), qPrintable(panel.lastLogEntry()));

        c.name = QStringLiteral("w");
        c.aggregation = QStringLiteral("none");
        create(panel, c);
        apply(panel, "w", "replica", "assign_add", {1.0, 2.0, 3.0, 4.0});
        QVERIFY(panel.lastLogEntryIsError());
        QCOMPARE(panel.copyTexts("w"), texts({"1"}));
    }

    void oneDeviceIsPlainWithOneReplica() {
        VariableLabPanel panel;
        panel.show();
        choose(panel.form().strategyBox(), "one_device");
        QCOMPARE(panel.form().replicasBox().value(), 1);
        QVERIFY(!panel.form().replicasBox().isEnabled());
        Creation c;
        c.strategy = QStringLiteral("one_device");
        c.replicas = 1;
        c.aggregation = QStringLiteral("sum");
        create(panel, c);
        QCOMPARE(panel.kindText("v"), QStringLiteral("plain"));
        apply(panel, "v", "replica", "assign_add", {5.0}, false);
        QCOMPARE(panel.copyTexts("v"), texts({"6"}));
        choose(panel.form().strategyBox(), "mirrored");
        QVERIFY(panel.form().replicasBox().isEnabled());
        QCOMPARE(panel.form().replicasBox().value(), 2);  // the count from before one_device
    }

    void replicaColoursAreShared() {
        VariableLabPanel panel;
        panel.show();
        Creation c;
        c.replicas = 3;
        create(panel, c);
        VariableCard* card = panel.card("v");
        QVERIFY(card != nullptr);
        for (int i = 0; i < 3; ++i) QCOMPARE(card->copyColor(i), replicaColor(i));
    }

    void onlyTheLastOpIsHighlighted() {
        VariableLabPanel panel;
        panel.show();
        create(panel, {});
        Creation c;
        c.name = QStringLiteral("w");
        create(panel, c);
        apply(panel, "v", "replica", "assign_add", {1.0, 0.0});
        QCOMPARE(panel.changedCopies("v"), (QList<bool>{true, false}));
        apply(panel, "w", "cross-replica", "assign", {5.0});
        QCOMPARE(panel.changedCopies("v"), (QList<bool>{false, false}));
        QCOMPARE(panel.changedCopies("w"), (QList<bool>{true, true}));
        QCOMPARE(panel.copyTexts("v"), texts({"2", "1"}));
    }

    void clickingACardTargetsIt() {
        VariableLabPanel panel;
        panel.show();
        create(panel, {});
        Creation c;
        c.name = QStringLiteral("w");
        c.replicas = 4;
        create(panel, c);
        QCOMPARE(panel.opBar().target(), QStringLiteral("w"));
        QVERIFY(panel.opBar().replicaValueBox(3).isVisibleTo(&panel));
        QTest::mouseClick(panel.card("v"), Qt::LeftButton, {}, QPoint(5, 5));
        QCOMPARE(panel.opBar().target(), QStringLiteral("v"));
        QVERIFY(!panel.opBar().replicaValueBox(2).isVisibleTo(&panel));
    }

    // The log keeps the newest OpLog::kMaxEntries entries, one text block each, newest on top.
    void logIsBoundedNewestFirst() {
        VariableLabPanel panel;
        panel.show();
        VariableSpec spec;
        spec.name = "v";
        QVERIFY(panel.createVariable(spec, VariableStrategy::Mirrored, 2));
        const VariableOpRequest add{UpdateContext::CrossReplica, VariableOp::AssignAdd, {1.0}, false};
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < OpLog::kMaxEntries + 5; ++i) QVERIFY(panel.applyOp("v", add).ok);
        qInfo("%d ops applied and logged in %lld ms", OpLog::kMaxEntries + 5, timer.elapsed());
        QCOMPARE(panel.copyTexts("v"), texts({"505", "505"}));  // from 0
        QCOMPARE(panel.logEntryCount(), OpLog::kMaxEntries);
        QCOMPARE(panel.log().blockCount(), OpLog::kMaxEntries);
        QVERIFY2(panel.lastLogEntry().startsWith("#506 v"), qPrintable(panel.lastLogEntry()));
        QVERIFY(panel.log().entryText(OpLog::kMaxEntries - 1).startsWith("#7 v"));
        QVERIFY(panel.log().document()->firstBlock().text().startsWith("#506 v"));
        QVERIFY(panel.log().document()->lastBlock().text().startsWith("#7 v"));
    }

    void removeClearAndReset() {
        VariableLabPanel panel;
        panel.show();
        create(panel, {});
        Creation c;
        c.name = QStringLiteral("w");
        create(panel, c);
        QCOMPARE(panel.variableNames(), texts({"v", "w"}));
        panel.card("v")->removeButton().click();
        QCOMPARE(panel.variableNames(), texts({"w"}));
        QCOMPARE(panel.opBar().variableBox().count(), 1);
        QVERIFY(panel.lastLogEntry().startsWith("#3 removed v"));
        panel.clearLogButton().click();
        QCOMPARE(panel.logEntryCount(), 0);
        QVERIFY(panel.log().document()->isEmpty());
        QCOMPARE(panel.variableNames(), texts({"w"}));
        panel.resetButton().click();
        QVERIFY(panel.variableNames().isEmpty());
        QVERIFY(panel.emptyStateShown());
        QVERIFY(!panel.opBar().isEnabled());
        QCOMPARE(panel.logEntryCount(), 0);
        create(panel, {});
        QVERIFY(panel.lastLogEntry().startsWith("#1 create v"));
    }
};

QTEST_MAIN(TestVariableLabPanel)
#include "test_variable_lab_panel.moc"
