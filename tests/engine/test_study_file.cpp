// Study files (docs/interfaces.md §13.1): every limit refused with the file and the field named,
// overrides applied by the --set code, config files relative to the study, the ready examples,
// the spec written back, and the summary table's CSV.
#include <distlab/config/run_config_json.hpp>
#include <distlab/study/study.hpp>
#include <distlab/study/study_knobs.hpp>
#include <distlab/study/study_table.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <string>

using namespace distlab;

namespace {

QString q(const std::string& text) { return QString::fromStdString(text); }

// A small valid run config: circle data, one device.
const std::string kBase = R"({"seed": 3, "model": {"layers": [{"units": 4, "activation": "tanh"}, {"units": 2}]},)"
                          R"( "data": {"samples": 200, "global_batch_size": 16}, "steps": 50})";

std::string studyWith(const std::string& variants, const std::string& extra = "") {
    return R"({"name": "s", "base": )" + kBase + (extra.empty() ? "" : ", " + extra) + R"(, "variants": )" + variants + "}";
}

const std::string kTwoVariants = R"([{"label": "a", "set": {"optimizer.learning_rate": 0.1}},)"
                                 R"( {"label": "b", "set": {"strategy.type": "mirrored", "strategy.replicas": 2}}])";

QString errorOf(const std::string& text, const std::string& folder = "/nonexistent") {
    const Result<Study> study = parseStudy(text, "s.study.json", folder);
    return study.ok() ? QStringLiteral("<parsed without error>") : q(study.error().message);
}

void writeText(const QString& path, const std::string& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text.data(), static_cast<qint64>(text.size()));
}

}  // namespace

class TestStudyFile : public QObject {
    Q_OBJECT

private slots:
    void overridesApplyToTheBase() {
        const Result<Study> study = parseStudy(studyWith(kTwoVariants, R"("steps": 7, "target_accuracy": 0.9)"), "s.study.json", "/tmp");
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        QCOMPARE(study->variants.size(), std::size_t{2});
        const RunConfig& a = study->variants[0].config;
        const RunConfig& b = study->variants[1].config;
        QCOMPARE(a.optimizer.learningRate, 0.1);
        QCOMPARE(b.optimizer.learningRate, 0.01);  // the base's default
        QCOMPARE(b.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(b.strategy.replicaCount(), std::int64_t{2});
        QCOMPARE(a.steps, std::int64_t{7});  // the study's steps replace the config's
        QCOMPARE(b.steps, std::int64_t{7});
        QCOMPARE(a.seed, std::uint64_t{3});
        QCOMPARE(b.seed, std::uint64_t{3});
        QVERIFY(study->variants[1].sameSeedAndDataAsBaseline);
        QCOMPARE(study->variants[0].label, std::string("a"));
        QCOMPARE(study->baseline(), 0);
        QCOMPARE(*study->spec.targetAccuracy, 0.9);
        QCOMPARE(study->spec.mode, StudyMode::Sequential);
        QCOMPARE(study->evalEvery(1000), std::int64_t{20});
        QCOMPARE(study->evalEvery(10), std::int64_t{1});
    }

    void anOverrideOfTheDataIsNoted() {
        const Result<Study> study =
            parseStudy(studyWith(R"([{"label": "a", "set": {"data.global_batch_size": 32}}, {"label": "b", "set": {"seed": 9}}])"),
                       "s.study.json", "/tmp");
        QVERIFY(study.ok());
        QVERIFY(study->variants[0].sameSeedAndDataAsBaseline);  // the batch size is a knob, not the data
        QVERIFY(!study->variants[1].sameSeedAndDataAsBaseline);
    }

    void configFilesResolveAgainstTheStudy() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath("configs"));
        writeText(dir.filePath("configs/base.json"), kBase);
        writeText(dir.filePath("configs/other.json"), kBase);
        writeText(dir.filePath("s.study.json"),
                  R"({"base": "configs/base.json", "baseline": "file", "mode": "simultaneous", "variants": [)"
                  R"({"label": "base", "set": {"strategy.replicas": 1}},)"
                  R"({"label": "file", "config": "configs/other.json", "set": {"optimizer.learning_rate": 0.2}}]})");
        const Result<Study> study = loadStudy(dir.filePath("s.study.json").toStdString(), "STUDY");
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        QCOMPARE(study->baseline(), 1);
        QCOMPARE(study->spec.mode, StudyMode::Simultaneous);
        QCOMPARE(study->variants[1].config.optimizer.learningRate, 0.2);
        QCOMPARE(study->variants[1].config.steps, std::int64_t{50});
        // Data paths of a config file resolve against its own folder.
        QCOMPARE(q(study->variants[0].config.baseDirectory), QDir(dir.filePath("configs")).absolutePath());
    }

    void badStudiesNameTheFileAndTheField_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const std::string& text, const char* expected) {
            QTest::newRow(name) << q(text) << QString::fromUtf8(expected);
        };
        row("one variant", studyWith(R"([{"label": "a", "set": {}}])"), "s.study.json: variants: a study compares 2 to 6 variants (got 1)");
        std::string seven = "[";
        for (int i = 0; i < 7; ++i) seven += std::string(i ? "," : "") + "{\"label\": \"v" + std::to_string(i) + "\", \"set\": {}}";
        row("seven variants", studyWith(seven + "]"), "s.study.json: variants: a study compares 2 to 6 variants (got 7)");
        row("no variants", R"({"base": )" + kBase + "}", "s.study.json: variants: required key is missing");
        row("unknown key", studyWith(kTwoVariants, R"("stpes": 3)"),
            "s.study.json: stpes: unknown key (expected one of: name, base, variants");
        row("unknown variant key", studyWith(R"([{"label": "a", "sett": {}}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0].sett: unknown key");
        row("no label", studyWith(R"([{"set": {}}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0].label: required key is missing");
        row("same label", studyWith(R"([{"label": "a", "set": {}}, {"label": "a", "set": {}}])"),
            "s.study.json: variants[1].label: \"a\" labels another variant already");
        row("neither config nor set", studyWith(R"([{"label": "a"}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0]: give the variant a config file");
        row("set not an object", studyWith(R"([{"label": "a", "set": 3}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0].set: must be an object of dotted keys");
        row("unknown baseline", studyWith(kTwoVariants, R"("baseline": "c")"), "s.study.json: baseline: no variant is labelled \"c\"");
        row("target above 1", studyWith(kTwoVariants, R"("target_accuracy": 1.5)"),
            "s.study.json: target_accuracy: must be a fraction in (0, 1]");
        row("zero steps", studyWith(kTwoVariants, R"("steps": 0)"), "s.study.json: steps: must be an integer in [1, 1000000000] (got 0)");
        row("bad mode", studyWith(kTwoVariants, R"("mode": "parallel")"), "s.study.json: mode: ");
        row("base neither file nor object", R"({"base": 3, "variants": )" + kTwoVariants + "}",
            "s.study.json: base: must be a run config file name or a run config object (got a number)");
        row("no base", R"({"variants": )" + kTwoVariants + "}", "s.study.json: variants[0]: has no config file and the study has no base");
        row("override out of range", studyWith(R"([{"label": "a", "set": {}}, {"label": "b", "set": {"strategy.replicas": 0}}])"),
            "s.study.json: variants[1]: strategy.replicas: must be");
        row("override unknown key", studyWith(R"([{"label": "a", "set": {"optimizer.learning_rte": 0.1}}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0]: optimizer.learning_rte: unknown key");
        row("override through a value", studyWith(R"([{"label": "a", "set": {"seed.x": 1}}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0].set.seed.x: seed is a number, not an object");
        row("malformed key path", studyWith(R"([{"label": "a", "set": {"optimizer..x": 1}}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0].set.optimizer..x: expected a dotted key path");
        row("bad base", R"({"base": {"model": {}}, "variants": )" + kTwoVariants + "}",
            "s.study.json: base: model.layers: required key is missing");
        row("missing base file", R"({"base": "nope.json", "variants": )" + kTwoVariants + "}",
            "s.study.json: base: cannot read \"nope.json\" (/nonexistent/nope.json): No such file or directory");
        row("missing variant file", studyWith(R"([{"label": "a", "config": "x.json"}, {"label": "b", "set": {}}])"),
            "s.study.json: variants[0].config: cannot read \"x.json\"");
        row("regression with a target",
            studyWith(
                R"([{"label": "a", "set": {}}, {"label": "b", "set": {"model.loss": "mse", "model.layers[1].units": 1, "data.kind": "regression_plane"}}])",
                R"("target_accuracy": 0.5)"),
            "s.study.json: target_accuracy: variant \"b\" is a regression (loss mse) and has no accuracy");
        row("syntax", R"({"variants": [)", "s.study.json: byte ");
    }
    void badStudiesNameTheFileAndTheField() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString error = errorOf(text.toStdString());
        QVERIFY2(error.startsWith(expected), qPrintable(error + "\n  expected it to start with: " + expected));
    }

    void aSpecIsWrittenAndReadBack() {
        const Result<Study> study = parseStudy(
            studyWith(kTwoVariants, R"("steps": 9, "eval_every": 3, "baseline": "b", "target_accuracy": 0.75, "mode": "simultaneous")"),
            "s.study.json", "/tmp");
        QVERIFY(study.ok());
        const std::string text = studyToJson(study->spec);
        const Result<Study> again = parseStudy(text, "again.json", "/tmp");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE(q(studyToJson(again->spec)), q(text));
        QCOMPARE(again->spec.baseline, 1);
        QCOMPARE(*again->spec.steps, std::int64_t{9});
        QCOMPARE(again->spec.evalEvery, std::int64_t{3});
        QCOMPARE(again->spec.mode, StudyMode::Simultaneous);
        QCOMPARE(again->variants[1].config, study->variants[1].config);
    }

    void everyExampleStudyParses() {
        const QDir examples(QStringLiteral(DISTLAB_EXAMPLES_DIR));
        const QStringList studies = examples.entryList({QStringLiteral("*.study.json")}, QDir::Files, QDir::Name);
        QVERIFY(studies.size() >= 3);
        for (const QString& name : studies) {
            const Result<Study> study = loadStudy(examples.filePath(name).toStdString());
            QVERIFY2(study.ok(), qPrintable(name + ": " + (study.ok() ? QString() : q(study.error().message))));
            QVERIFY(study->variants.size() >= 2 && study->variants.size() <= 6);
            for (const StudyVariant& variant : study->variants) QVERIFY2(variant.sameSeedAndDataAsBaseline, qPrintable(name));
        }
    }

    void aRunVariedOverTwoKnobs() {
        auto text = applyOverrides(kBase, {"strategy.type=mirrored", "strategy.replicas=1"}, "base.json");
        QVERIFY(text.ok());
        auto base = parseRunConfig(*text, "base.json");
        QVERIFY2(base.ok(), base.ok() ? "" : base.error().message.c_str());
        auto study = studyVarying(*base, {{"strategy.cross_device_ops", {"\"ring\"", "\"tree\""}}, {"strategy.replicas", {"2", "4"}}});
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        QCOMPARE(study->variants.size(), std::size_t{4});
        QCOMPARE(q(study->variants[3].label), QStringLiteral("tree, 4"));
        QCOMPARE(study->variants[3].config.strategy.crossDeviceOps, CrossDeviceOps::Tree);
        QCOMPARE(study->variants[3].config.strategy.replicaCount(), std::int64_t{4});
        QCOMPARE(study->variants[0].config.seed, base->seed);
        // Every knob the app offers is a key a variant's set accepts, with every one of its choices.
        for (const StudyKnob& knob : studyKnobs()) {
            if (knob.choices.empty()) continue;
            auto all = studyVarying(*base, {{knob.key, knob.choices}});
            QVERIFY2(all.ok(), qPrintable(q(knob.key) + ": " + (all.ok() ? QString() : q(all.error().message))));
        }
        auto tooMany = studyVarying(*base, {{"strategy.replicas", {"1", "2", "3", "4"}}, {"optimizer.learning_rate", {"0.1", "0.2"}}});
        QVERIFY(!tooMany.ok());
        QVERIFY(tooMany.error().message.starts_with("study: variants: a study compares 2 to 6 variants (got 8)"));
        // The optimizer knob brings the base's learning rate to the other optimizer.
        auto optimizers = studyVarying(*base, {{"optimizer.type", {"\"sgd\"", "\"adam\""}}});
        QVERIFY(optimizers.ok());
        QCOMPARE(optimizers->variants[1].config.optimizer.type, OptimizerKind::Adam);
        QCOMPARE(optimizers->variants[1].config.optimizer.learningRate, base->optimizer.learningRate);
    }

    // The issue: "New study from this run" on a parameter-server run failed with "variants[0]:
    // strategy.workers: unknown key" (the strategy knob set only the type on the base's object). Every
    // knob works from every strategy the app runs, or says why it is unavailable.
    void everyKnobWorksFromEveryStrategy() {
        const std::vector<std::vector<std::string>> strategies{
            {"strategy.type=one_device"},
            {"strategy.type=mirrored", "strategy.replicas=2", "strategy.gradient_accumulation_steps=2"},
            {"strategy.type=central_storage", "strategy.replicas=2"},
            {"strategy.type=parameter_server", "strategy.workers=4", "strategy.worker_speed=[1, 1, 1, 0.5]",
             "strategy.partitioner={\"type\": \"fixed\", \"num_shards\": 2}"},
            {"strategy.type=parameter_server", "strategy.workers=4", "strategy.mode=sync", "strategy.gradients_to_aggregate=3"},
        };
        for (const auto& overrides : strategies) {
            auto text = applyOverrides(kBase, overrides, "base.json");
            QVERIFY(text.ok());
            auto base = parseRunConfig(*text, "base.json");
            QVERIFY2(base.ok(), base.ok() ? "" : base.error().message.c_str());
            const QString name = q(configName(base->strategy.type));
            for (const StudyKnob& knob : studyKnobs()) {
                const std::vector<std::string> values = !knob.choices.empty()                  ? knob.choices
                                                        : knob.key == "data.global_batch_size" ? std::vector<std::string>{"32", "64"}
                                                                                               : std::vector<std::string>{"0.01", "0.1"};
                auto study = studyVarying(*base, {{knob.key, values}});
                const std::string reason = knobUnavailableReason(*base, knob.key);
                if (!reason.empty()) {
                    QVERIFY(!study.ok());
                    QCOMPARE(study.error().message, reason);
                    continue;
                }
                QVERIFY2(study.ok(), qPrintable(name + " " + q(knob.key) + ": " + (study.ok() ? QString() : q(study.error().message))));
            }
        }
        // Only accumulation under parameter servers is unavailable, and it says why.
        auto servers = parseRunConfig(*applyOverrides(kBase, strategies[3], "base.json"), "base.json");
        QVERIFY(servers.ok());
        QVERIFY(
            knobUnavailableReason(*servers, "strategy.gradient_accumulation_steps").starts_with("Parameter servers apply every gradient"));
        // What the variants are, from a parameter-server run: the strategy knob gives each kind with as
        // many lanes as the run's 4 workers; replicas are the servers' workers.
        auto kinds = studyVarying(*servers, {{"strategy.type", studyKnobs()[0].choices}});
        QVERIFY(kinds.ok());
        QCOMPARE(kinds->variants[0].config.strategy.type, StrategyKind::OneDevice);
        QCOMPARE(kinds->variants[1].config.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(kinds->variants[1].config.strategy.replicaCount(), std::int64_t{4});
        QCOMPARE(kinds->variants[3].config.strategy, servers->strategy);  // the run itself
        auto workers = studyVarying(*servers, {{"strategy.replicas", {"2", "4"}}});
        QVERIFY(workers.ok());
        QCOMPARE(workers->variants[0].config.strategy.type, StrategyKind::ParameterServer);
        QCOMPARE(workers->variants[0].config.strategy.workers, std::int64_t{2});
        QCOMPARE(workers->variants[0].config.strategy.workerSpeed, (std::vector<double>{1.0, 1.0}));
        QCOMPARE(workers->variants[1].config.strategy.workers, std::int64_t{4});
        // Two knobs compose: the kind and then the lanes.
        auto both =
            studyVarying(*servers, {{"strategy.type", {"\"mirrored\"", "\"parameter_server\""}}, {"strategy.replicas", {"2", "4"}}});
        QVERIFY2(both.ok(), both.ok() ? "" : both.error().message.c_str());
        QCOMPARE(both->variants[1].config.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(both->variants[1].config.strategy.replicaCount(), std::int64_t{4});
        QCOMPARE(both->variants[2].config.strategy.workers, std::int64_t{2});
        // One device's replicas knob gives mirrored replicas beyond the first.
        auto oneDevice = parseRunConfig(*applyOverrides(kBase, strategies[0], "base.json"), "base.json");
        auto replicas = studyVarying(*oneDevice, {{"strategy.replicas", {"1", "2"}}});
        QVERIFY(replicas.ok());
        QCOMPARE(replicas->variants[0].config.strategy.type, StrategyKind::OneDevice);
        QCOMPARE(replicas->variants[1].config.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(replicas->variants[1].config.strategy.replicaCount(), std::int64_t{2});
    }

    void theTableQuotesCsvCells() {
        StudyRow a;
        a.label = "a, the first";
        a.state = VariantState::Finished;
        a.steps = 10;
        a.trainingSeconds = 2.0;
        a.samplesPerSecond = 100.0;
        a.finalLoss = 0.5;
        StudyRow b = a;
        b.label = "b";
        b.samplesPerSecond = 250.0;
        b.phaseTotalsNs[Phase::Compute] = 3.0;
        b.phaseTotalsNs[Phase::Idle] = 1.0;
        b.shares = phaseShares(b.phaseTotalsNs);
        const std::vector<StudyRow> rows{a, b};
        const StudyTable table = makeStudyTable(rows, 0);
        QCOMPARE(table.rows.size(), std::size_t{2});
        const std::string csv = studyTableCsv(table);
        QVERIFY(csv.starts_with("variant,state,steps,seconds,final_loss,"));
        QVERIFY2(csv.find("\n\"a, the first\",finished,10,2.000,0.5,,") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find(",250,2.500,") != std::string::npos, csv.c_str());                 // samples/s and the ratio to a
        QVERIFY2(csv.find(",0.750,0.000,0.250,0.000\n") != std::string::npos, csv.c_str());  // idle counts as waiting
    }

    void aPredictionSitsBesideItsMeasurement() {
        StudyRow a;
        a.label = "a";
        a.state = VariantState::Finished;
        a.steps = 200;
        a.trainingSeconds = 0.5;  // 2.5 ms a step
        a.samplesPerSecond = 51200.0;
        a.finalLoss = 0.25;
        StudyRow b = a;
        b.label = "b";
        b.trainingSeconds = 0.8;  // 4 ms a step, not predicted
        const std::vector<StudyRow> rows{a, b};
        const std::vector<std::optional<StepTimePrediction>> predictions{StepTimePrediction{2.75}, std::nullopt};
        const StudyTable table = makeStudyTable(rows, 0, predictions);
        // Right after seconds (step_ms = seconds / steps), not after the sixteen other columns.
        const std::vector<std::string> header{"variant",
                                              "state",
                                              "steps",
                                              "seconds",
                                              "step_ms",
                                              "predicted_step_ms",
                                              "prediction_error",
                                              "final_loss",
                                              "test_loss",
                                              "accuracy",
                                              "steps_to_target",
                                              "seconds_to_target",
                                              "samples_per_sec",
                                              "speed_vs_baseline",
                                              "bytes_per_step",
                                              "peak_memory_mib",
                                              "compute_share",
                                              "comm_share",
                                              "wait_share",
                                              "optimizer_share"};
        QCOMPARE(table.header, header);
        const std::string csv = studyTableCsv(table);
        // 2.75 predicted over 2.5 measured, less 1: +10 %; b was measured but not predicted.
        QVERIFY2(csv.find("\na,finished,200,0.500,2.5,2.75,+0.100,0.25,") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find("\nb,finished,200,0.800,4,,,0.25,") != std::string::npos, csv.c_str());
        for (const auto& row : table.rows) QCOMPARE(row.size(), header.size());
    }
};

QTEST_GUILESS_MAIN(TestStudyFile)
#include "test_study_file.moc"
