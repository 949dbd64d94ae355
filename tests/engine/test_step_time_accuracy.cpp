// The issue's promise for the step-time model (docs/interfaces.md §13.5): on this machine a
// prediction is within 25 % of the measured mean step, for one device, mirrored (2 and 4 replicas,
// two reduction algorithms) and parameter servers (async and sync), on a small study run the way
// `distlab-cli compare --predict` runs one. A timed test: CTest runs it alone (RUN_SERIAL), with no
// cache file (the calibration is measured here, minutes before the steps it predicts). Other work
// on a shared machine can still slow one variant's steps for a moment; a variant outside the
// bound is measured again, with a fresh calibration, once.
#include <distlab/study/step_time_model.hpp>
#include <distlab/study/study.hpp>
#include <distlab/study/study_runner.hpp>

#include <QtTest>

#include <cmath>

using namespace distlab;

namespace {

constexpr double kBound = 0.25;

// A small model, large enough that a step is tens of microseconds (the clock and a stray wake-up
// are small beside it) and small enough that the study takes seconds.
const char* const kBase = R"({
  "name": "accuracy", "steps": 3000, "baseline": "one device",
  "base": {
    "seed": 3,
    "model": {"layers": [{"units": 64, "activation": "tanh"}, {"units": 64, "activation": "tanh"}, {"units": 2}]},
    "data": {"source": "synthetic", "kind": "circle", "samples": 2000, "noise": 0.1, "train_fraction": 0.5, "global_batch_size": 64},
    "optimizer": {"type": "sgd", "learning_rate": 0.05, "momentum": 0.9}
  },
  "variants": [
    {"label": "one device", "set": {"strategy.type": "one_device"}},
)";
// A study holds at most six variants: the mirrored ones in one, the parameter servers in another.
const char* const kMirrored = R"(
    {"label": "mirrored 2 ring", "set": {"strategy.type": "mirrored", "strategy.replicas": 2, "strategy.cross_device_ops": "ring"}},
    {"label": "mirrored 2 tree", "set": {"strategy.type": "mirrored", "strategy.replicas": 2, "strategy.cross_device_ops": "tree"}},
    {"label": "mirrored 4 ring", "set": {"strategy.type": "mirrored", "strategy.replicas": 4, "strategy.cross_device_ops": "ring"}},
    {"label": "mirrored 4 hierarchical", "set": {"strategy.type": "mirrored", "strategy.replicas": 4, "strategy.cross_device_ops": "hierarchical_copy"}}
  ]
})";
const char* const kServers = R"(
    {"label": "servers async", "set": {"strategy.type": "parameter_server", "strategy.workers": 2, "strategy.mode": "async"}},
    {"label": "servers sync", "set": {"strategy.type": "parameter_server", "strategy.workers": 2, "strategy.mode": "sync"}}
  ]
})";

/// Each variant's prediction error (predicted / measured - 1), the study run with predictions.
std::vector<double> errorsOf(const Study& study) {
    StudyRunner runner(study);
    runner.setPredictStepTimes(true);
    const std::vector<StudyRow> rows = runner.run(nullptr);
    std::vector<double> errors;
    for (int v = 0; v < int(rows.size()); ++v) {
        const auto predicted = runner.prediction(v);
        const StudyRow& row = rows[static_cast<std::size_t>(v)];
        if (!predicted || row.steps == 0) qFatal("%s: no prediction (%s) or no step", row.label.c_str(), runner.predictionNote(v).c_str());
        const double measuredMs = row.trainingSeconds * 1e3 / double(row.steps);
        errors.push_back(predicted->stepMs / measuredMs - 1.0);
        qInfo("%-24s measured %.4f ms, predicted %.4f ms, error %+.3f", row.label.c_str(), measuredMs, predicted->stepMs,
              errors.back());
    }
    return errors;
}

}  // namespace

class TestStepTimeAccuracy : public QObject {
    Q_OBJECT

private slots:
    void predictionsAreWithin25PercentOfTheMeasuredSteps_data() {
        QTest::addColumn<QString>("variants");
        QTest::newRow("mirrored") << QString::fromUtf8(kMirrored);
        QTest::newRow("parameter servers") << QString::fromUtf8(kServers);
    }

    void predictionsAreWithin25PercentOfTheMeasuredSteps() {
        QFETCH(QString, variants);
        qputenv("DISTLAB_STEP_TIME_CACHE", "off");  // never the user's cache: measured here, now
        auto study = parseStudy(kBase + variants.toStdString(), "accuracy.study.json", ".");
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        std::vector<double> errors = errorsOf(*study);
        bool allWithin = true;
        for (double error : errors) allWithin = allWithin && std::abs(error) <= kBound;
        if (!allWithin) {
            qInfo("again: a variant was outside the bound (the machine may have been busy for a moment)");
            const std::vector<double> again = errorsOf(*study);
            for (std::size_t v = 0; v < errors.size(); ++v)
                if (std::abs(again[v]) < std::abs(errors[v])) errors[v] = again[v];
        }
        for (std::size_t v = 0; v < errors.size(); ++v)
            QVERIFY2(std::abs(errors[v]) <= kBound,
                     qPrintable(QStringLiteral("%1: predicted %2 %% off the measured step")
                                    .arg(QString::fromStdString(study->variants[v].label))
                                    .arg(errors[v] * 100, 0, 'f', 1)));
    }
};

QTEST_GUILESS_MAIN(TestStepTimeAccuracy)
#include "test_step_time_accuracy.moc"
