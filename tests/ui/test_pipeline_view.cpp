// A split model in the app, as a person sets one up and watches it: the Strategy page's pipeline
// knobs and their bubble formula, the Model page's device and stage column (balance stages), the
// Schedule tab's lanes, its walk through a held step pass by pass, and its bubbles against theory;
// tensor parallelism's devices and the split of the model they make.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

#include <distlab/config/run_config_json.hpp>

#include "panels/model_panel.hpp"
#include "panels/pipeline_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "panels/tensor_parallel_options.hpp"
#include "bridge/run_history.hpp"
#include "ui_test_support.hpp"
#include "bridge/comm_capture.hpp"
#include "views/comm_diagram.hpp"
#include "views/communication_view.hpp"
#include "views/schedule_canvas.hpp"
#include "views/schedule_view.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

RunConfig spiralConfig() {
    RunConfig config;
    config.name = "spiral";
    config.seed = 5;
    config.model.layers = {{"dense", 16, Activation::Relu, ""},
                           {"dense", 16, Activation::Relu, ""},
                           {"dense", 16, Activation::Relu, ""},
                           {"dense", 2, Activation::Linear, ""}};
    config.data.kind = SyntheticKind::Spiral;
    config.data.samples = 400;
    config.data.globalBatchSize = 32;
    config.steps = 0;
    return config;
}

}  // namespace

class TestPipelineView : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("test_pipeline_view")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1440, 900), spiralConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() { m_window.reset(); }

    void aPipelinePickedInTheSetUpTrainsAndShowsItsSchedule() {
        MainWindow& window = *m_window;
        QVERIFY(!tabShown(window, &window.scheduleView()));  // one device splits nothing
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findText(QStringLiteral("Pipeline")));
        PipelineOptions& pipeline = strategy.pipelineOptions();
        pipeline.stagesBox().setValue(2);
        pipeline.microBatchesBox().setValue(4);
        pipeline.scheduleBox().setCurrentIndex(pipeline.scheduleBox().findData(static_cast<int>(PipelineSchedule::OneFOneB)));
        // The formula for p = 2, m = 4: 1/5 (the expected value is the closed form, worked by hand).
        QVERIFY2(pipeline.bubbleText().text().contains(QStringLiteral("(p − 1)/(m + p − 1) = 1/5 = 20.0 %")),
                 qPrintable(pipeline.bubbleText().text()));
        pipeline.microBatchesBox().setValue(5);  // does not divide 32
        QVERIFY2(pipeline.bubbleText().text().contains(QStringLiteral("do not divide the global batch of 32")),
                 qPrintable(pipeline.bubbleText().text()));
        pipeline.microBatchesBox().setValue(4);
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::Pipeline, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        const RunConfig config = window.controller().config();
        QVERIFY(validateRunConfig(config, "app"));
        QCOMPARE(config.strategy.devices, (std::vector<DeviceName>{{DeviceName::Kind::Cpu, 0}, {DeviceName::Kind::Cpu, 1}}));
        QCOMPARE(config.strategy.microBatches, std::int64_t{4});
        QVERIFY(tabShown(window, &window.scheduleView()));
        QVERIFY2(window.statusText().contains(QStringLiteral("a model split over 2 devices on cpu:0–1")), qPrintable(window.statusText()));

        window.views().setCurrentWidget(&window.scheduleView());
        window.playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().schedule() != nullptr && window.controller().stepsDone() > 20, kLoadTimeoutMs);
        ScheduleView& view = window.scheduleView();
        QTRY_VERIFY_WITH_TIMEOUT(view.canvas().schedule() != nullptr, kLoadTimeoutMs);
        // Two devices, four micro-batches: a forward and a backward of each on each device.
        QCOMPARE(view.canvas().cellCount(), 16);
        QVERIFY2(view.bubbleLabel().text().contains(QStringLiteral("1/5 = 20.0 %")), qPrintable(view.bubbleLabel().text()));
        const std::int64_t held = view.canvas().schedule()->step;
        // Walking through the step holds it: the first pass to begin is micro-batch 0's forward on cpu:0.
        view.nextButton().click();
        QVERIFY(view.holdBox().isChecked());
        QCOMPARE(view.canvas().cellsShown(), 1);
        QVERIFY2(view.canvas().currentCellText().startsWith(QStringLiteral("Forward of micro-batch 0 on cpu:0, stage 0")),
                 qPrintable(view.canvas().currentCellText()));
        view.nextButton().click();
        QCOMPARE(view.canvas().cellsShown(), 2);
        view.previousButton().click();
        QCOMPARE(view.canvas().cellsShown(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() > held + 20, kLoadTimeoutMs);
        window.controller().tick();
        QCOMPARE(view.canvas().schedule()->step, held);  // still the held step
        view.holdBox().setChecked(false);
        QTRY_VERIFY_WITH_TIMEOUT(view.canvas().schedule()->step > held, kLoadTimeoutMs);
        QCOMPARE(view.canvas().cellsShown(), 16);
        view.canvas().repaint();
        QCOMPARE(view.canvas().cellsPainted(), 16);
        window.pauseAction()->trigger();
    }

    void copiesOfAPipelinePickedInTheSetUpTrainAsAMesh() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findText(QStringLiteral("Pipeline")));
        PipelineOptions& pipeline = strategy.pipelineOptions();
        pipeline.stagesBox().setValue(2);
        pipeline.microBatchesBox().setValue(4);
        pipeline.dataParallelBox().setValue(3);  // 3 × 4 does not divide 32
        QVERIFY2(pipeline.bubbleText().text().contains(QStringLiteral("3 data-parallel copies × 4 micro-batches do not divide")),
                 qPrintable(pipeline.bubbleText().text()));
        pipeline.dataParallelBox().setValue(2);
        pipeline.balanceBox().setCurrentIndex(pipeline.balanceBox().findData(static_cast<int>(StageBalance::Measured)));
        QVERIFY2(pipeline.bubbleText().text().contains(QStringLiteral("Global batch 32 = 2 data-parallel copies × 4 micro-batches of 4 "
                                                                      "samples (devices cpu:0 – cpu:3")),
                 qPrintable(pipeline.bubbleText().text()));
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.dataParallel, std::int64_t{2}, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        const RunConfig config = window.controller().config();
        QVERIFY(validateRunConfig(config, "app"));
        QCOMPARE(config.strategy.devices.size(), std::size_t{4});
        QCOMPARE(config.strategy.balance, StageBalance::Measured);
        QVERIFY2(window.statusText().contains(QStringLiteral("2 copies of a model split over 2 devices on cpu:0–3")),
                 qPrintable(window.statusText()));
        window.stepAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().schedule() != nullptr, kLoadTimeoutMs);
        const auto schedule = window.controller().schedule();
        QCOMPARE(schedule->lanes.size(), std::size_t{4});                                // each copy's two devices
        for (const auto& lane : schedule->lanes) QCOMPARE(lane.size(), std::size_t{8});  // 4 forwards, 4 backwards
        // The formula is one copy's: p = 2, m = 4, 1/5 (worked by hand).
        QVERIFY2(bubbleFormulaText(*schedule).contains(QStringLiteral("= 1/5 = 20.0 %")), qPrintable(bubbleFormulaText(*schedule)));
        // The copies' all-reduces are counted per device, not stepped through (they are among a device's copies).
        window.views().setCurrentWidget(&window.communicationView());
        window.controller().tick();
        CommunicationView& communication = window.communicationView();
        QVERIFY2(communication.capturer().refusal().contains(QStringLiteral("A pipeline's copies all-reduce each stage's gradients")),
                 qPrintable(communication.capturer().refusal()));
        QVERIFY(!communication.diagram().isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(communication.stats().lastBytesSent(3) > 0, kLoadTimeoutMs);
    }

    void tensorParallelPickedInTheSetUpSaysHowTheModelSplitsAndTrains() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findText(QStringLiteral("Tensor parallel")));
        TensorParallelOptions& options = strategy.tensorParallelOptions();
        options.devicesBox().setValue(4);
        // 16, 16, 16, 2 units: two pairs; a step sums the two row layers' outputs forward and the
        // second column layer's input gradient backward (the first layer's input needs none).
        const QString split = options.splitText().text();
        QVERIFY2(split.contains(QStringLiteral("dense_0 by columns (4 of 16 each); dense_1 by rows, then summed; dense_2 by columns "
                                               "(4 of 16 each); dense_3 by rows, then summed")),
                 qPrintable(split));
        QVERIFY2(split.contains(QStringLiteral("all-reduces 2 activations forward and 1 input gradient backward")), qPrintable(split));
        options.devicesBox().setValue(3);
        QVERIFY2(options.splitText().text().contains(QStringLiteral("16 output columns do not split among tensor_parallel 3 devices")),
                 qPrintable(options.splitText().text()));
        // The Model page names each layer's split: two pairs of columns then rows.
        QTableWidget& layers = window.setup().modelPanel().table();
        QVERIFY(!layers.isColumnHidden(3));
        QStringList splits;
        for (int row = 0; row < layers.rowCount(); ++row) splits << layers.item(row, 3)->text();
        QCOMPARE(splits, (QStringList{"columns", "rows", "columns", "rows"}));
        // Two copies of two devices: a 2 x 2 mesh, each copy on half the batch.
        options.devicesBox().setValue(2);
        options.copiesBox().setValue(2);
        QVERIFY2(options.splitText().text().contains(QStringLiteral("each device sums its share of the gradient with the same device")),
                 qPrintable(options.splitText().text()));
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::TensorParallel, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        const RunConfig config = window.controller().config();
        QVERIFY(validateRunConfig(config, "app"));
        QCOMPARE(config.strategy.tensorParallel, std::int64_t{2});
        QCOMPARE(config.strategy.dataParallel, std::int64_t{2});
        QCOMPARE(config.strategy.devices.size(), std::size_t{4});
        QVERIFY(!tabShown(window, &window.scheduleView()));  // no stages: every device runs every layer
        QVERIFY2(window.statusText().contains(QStringLiteral("2 copies of weights split over 2 devices on cpu:0–3")),
                 qPrintable(window.statusText()));
        window.views().setCurrentWidget(&window.communicationView());
        window.playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() > 10, kLoadTimeoutMs);
        window.pauseAction()->trigger();
        window.controller().tick();
        QCOMPARE(window.controller().history().replicaCount(), 4);  // a lane per device
        // Its all-reduces are charted and counted, not stepped through (they are not the gradient).
        CommunicationView& communication = window.communicationView();
        QVERIFY2(communication.capturer().refusal().contains(QStringLiteral("Tensor parallelism all-reduces no gradient")),
                 qPrintable(communication.capturer().refusal()));
        QVERIFY(!communication.diagram().isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(communication.stats().lastBytesSent(0) > 0, kLoadTimeoutMs);
    }

    void modelParallelPlacesEachLayerOnTheDeviceTheModelPageNames() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findText(QStringLiteral("Model parallel (layer placement)")));
        ModelPanel& model = window.setup().modelPanel();
        QVERIFY(!model.table().isColumnHidden(3));
        QVERIFY(model.placementBox(0) != nullptr);
        QCOMPARE(model.placementBox(0)->prefix(), QStringLiteral("cpu:"));
        model.placementBox(2)->setValue(1);
        QTRY_VERIFY(model.placementBox(3) != nullptr);
        model.placementBox(3)->setValue(1);
        QTRY_VERIFY(model.placementBox(3) != nullptr && model.placementBox(3)->value() == 1);
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::ModelParallel, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        const RunConfig config = window.controller().config();
        QVERIFY(validateRunConfig(config, "app"));
        QCOMPARE(config.model.layers[1].device.value_or(DeviceName{}).index, 0);
        QCOMPARE(config.model.layers[2].device.value_or(DeviceName{}).index, 1);
        QCOMPARE(config.strategy.devices.size(), std::size_t{2});
        window.stepAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().schedule() != nullptr, kLoadTimeoutMs);
        QCOMPARE(window.controller().schedule()->lanes.size(), std::size_t{2});
    }

    void balanceStagesNamesEveryLayersStage() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findText(QStringLiteral("Pipeline")));
        strategy.pipelineOptions().stagesBox().setValue(2);
        ModelPanel& model = window.setup().modelPanel();
        QVERIFY(!model.balanceButton().isHidden());
        QCOMPARE(model.placementBox(0)->value(), -1);  // auto
        model.balanceButton().click();
        // 2×16, 16×16, 16×16, 16×2 multiply-accumulates: the costliest stage is least with the cut after layer 1.
        std::vector<std::int64_t> stages;
        for (const LayerConfig& layer : model.model().layers) stages.push_back(layer.stage);
        QCOMPARE(stages, (std::vector<std::int64_t>{0, 0, 1, 1}));
        // Three stages no longer fit the names: back to automatic.
        strategy.pipelineOptions().stagesBox().setValue(3);
        for (const LayerConfig& layer : model.model().layers) QCOMPARE(layer.stage, std::int64_t{-1});
    }
};

QTEST_MAIN(TestPipelineView)
#include "test_pipeline_view.moc"
