#include "panels/run_setup_panel.hpp"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QToolBox>
#include <QVBoxLayout>

#include <distlab/config/run_config_json.hpp>

#include "panels/data_panel.hpp"
#include "panels/model_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "panels/training_panel.hpp"

namespace distlab::ui {

namespace {
QScrollArea* scrolled(QWidget* page) {
    auto* area = new QScrollArea();
    area->setWidget(page);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}
}  // namespace

std::pair<std::int64_t, LossKind> expectedOutput(const DataConfig& data) {
    switch (data.source) {
        case DataSource::Synthetic:
            if (data.kind == SyntheticKind::RegressionPlane || data.kind == SyntheticKind::RegressionGauss) {
                return {1, LossKind::MeanSquaredError};
            }
            return {2, LossKind::SoftmaxCrossEntropy};
        case DataSource::FashionMnist:
            return {10, LossKind::SoftmaxCrossEntropy};
        case DataSource::Random:
            if (data.outputs > 0) return {data.outputs, LossKind::MeanSquaredError};
            return {data.classes, LossKind::SoftmaxCrossEntropy};
        case DataSource::Csv:
        case DataSource::Idx:
            break;
    }
    return {0, LossKind::SoftmaxCrossEntropy};
}

std::int64_t inputFeatures(const DataConfig& data) {
    switch (data.source) {
        case DataSource::Synthetic:
            return 2;
        case DataSource::FashionMnist:
            return 28 * 28;
        case DataSource::Random:
            return data.features;
        case DataSource::Csv:
        case DataSource::Idx:
            break;
    }
    return 0;
}

RunSetupPanel::RunSetupPanel(QWidget* parent) : QWidget(parent) {
    m_model = new ModelPanel();
    m_data = new DataPanel();
    m_strategy = new StrategyPanel();
    m_training = new TrainingPanel();
    m_pages = new QToolBox(this);
    m_pages->addItem(m_model, tr("Model"));
    m_pages->addItem(scrolled(m_data), tr("Data"));
    m_pages->addItem(scrolled(m_strategy), tr("Strategy"));
    m_pages->addItem(scrolled(m_training), tr("Optimizer and run"));
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("setupProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; font-weight: bold; }"));
    m_problem->hide();
    m_pending = new QFrame(this);
    m_pending->setObjectName(QStringLiteral("setupPending"));
    m_pending->setStyleSheet(QStringLiteral("#setupPending { background: #fff3cd; border: 1px solid #e0c36a; border-radius: 3px; }"));
    m_pendingText = new QLabel(m_pending);
    m_pendingText->setObjectName(QStringLiteral("setupPendingNote"));
    m_pendingText->setWordWrap(true);
    m_pendingText->setStyleSheet(QStringLiteral("QLabel { color: #5c4400; }"));
    auto* startNew = new QPushButton(tr("Start a new run with these edits"), m_pending);
    startNew->setObjectName(QStringLiteral("startNewRunButton"));
    auto* undo = new QPushButton(tr("Undo edits"), m_pending);
    undo->setObjectName(QStringLiteral("undoEditsButton"));
    undo->setToolTip(tr("Show the set-up of the run that is training again"));
    auto* pendingButtons = new QHBoxLayout();
    pendingButtons->addWidget(startNew, 1);
    pendingButtons->addWidget(undo);
    auto* pendingLayout = new QVBoxLayout(m_pending);
    pendingLayout->setContentsMargins(6, 6, 6, 6);
    pendingLayout->addWidget(m_pendingText);
    pendingLayout->addLayout(pendingButtons);
    m_pending->hide();
    connect(startNew, &QPushButton::clicked, this, &RunSetupPanel::startNewRunRequested);
    connect(undo, &QPushButton::clicked, this, &RunSetupPanel::undoEditsRequested);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_pages, 1);
    layout->addWidget(m_problem);
    layout->addWidget(m_pending);

    connect(m_model, &ModelPanel::edited, this, [this] {
        m_strategy->setModel(m_model->model());
        emit edited();
    });
    connect(m_data, &DataPanel::edited, this, &RunSetupPanel::onDataEdited);
    connect(m_data, &DataPanel::fashionPresetRequested, this, &RunSetupPanel::applyFashionPreset);
    connect(m_strategy, &StrategyPanel::edited, this, [this] {
        showPlacement();
        emit edited();
    });
    connect(m_training, &TrainingPanel::edited, this, &RunSetupPanel::edited);
    connect(m_training, &TrainingPanel::learningRateEdited, this, &RunSetupPanel::learningRateEdited);
}

void RunSetupPanel::setConfig(const RunConfig& config) {
    m_model->setModel(config.model);
    m_data->setConfig(config);
    m_strategy->setConfig(config);
    m_training->setConfig(config);
    showPlacement();
}

void RunSetupPanel::showPlacement() {
    const RunConfig config = draft(RunConfig{});
    const StrategyConfig& strategy = config.strategy;
    m_model->setPlacement(strategy.type, static_cast<int>(strategy.stages * strategy.virtualStages), static_cast<int>(strategy.stages),
                          inputFeatures(config.data));
}

RunConfig RunSetupPanel::draft(const RunConfig& base) const {
    RunConfig config = base;
    config.model = m_model->model();
    m_data->applyTo(config);
    m_strategy->applyTo(config);
    m_training->applyTo(config);
    return config;
}

void RunSetupPanel::onDataEdited() {
    RunConfig probe;
    m_data->applyTo(probe);
    m_strategy->setGlobalBatch(probe.data.globalBatchSize);
    const auto [units, loss] = expectedOutput(probe.data);
    if (units > 0) m_model->matchOutput(units, loss);  // emits edited() when it changes the model
    showPlacement();                                   // the input width weighs the first layer when stages are balanced
    emit edited();
}

void RunSetupPanel::applyFashionPreset() {
    RunConfig config = draft(RunConfig{});
    config.data.source = DataSource::FashionMnist;
    config.data.globalBatchSize = 256;
    LayerConfig hidden;
    hidden.units = 128;
    hidden.activation = Activation::Relu;
    LayerConfig output;
    output.units = 10;
    config.model.layers = {hidden, output};
    config.model.loss = LossKind::SoftmaxCrossEntropy;
    config.model.init = InitKind::HeNormal;
    m_model->setModel(config.model);
    m_data->setConfig(config);
    m_strategy->setGlobalBatch(config.data.globalBatchSize);
    emit edited();
}

void RunSetupPanel::setProblem(const QString& problem) {
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
}

QString RunSetupPanel::problem() const { return m_problem->text(); }

void RunSetupPanel::setPendingNote(const QString& note) {
    m_pendingText->setText(note);
    m_pending->setVisible(!note.isEmpty());
}

bool RunSetupPanel::hasPendingNote() const { return !m_pending->isHidden(); }

QStringList changedParts(const RunConfig& a, const RunConfig& b) {
    QStringList parts;
    if (!(a.model == b.model)) parts.append(RunSetupPanel::tr("the model"));
    if (!(a.data == b.data) || a.seed != b.seed) parts.append(RunSetupPanel::tr("the data"));
    // Compared as they train: a field the strategy does not use is not an edit.
    StrategyConfig sa = withUnusedKeysReset(a).strategy, sb = withUnusedKeysReset(b).strategy;
    if (sa.type == StrategyKind::ParameterServer && sb.type == StrategyKind::ParameterServer) {
        sb.mode = sa.mode;  // both apply live
        sb.workerSpeed = sa.workerSpeed;
    }
    if (!(sa == sb)) parts.append(RunSetupPanel::tr("the strategy"));
    OptimizerConfig oa = a.optimizer, ob = b.optimizer;
    ob.learningRate = oa.learningRate;
    if (!(oa == ob)) parts.append(RunSetupPanel::tr("the optimizer"));
    if (a.steps != b.steps) parts.append(RunSetupPanel::tr("the number of steps"));
    if (parts.isEmpty() && !(a == b)) parts.append(RunSetupPanel::tr("the run's settings"));
    return parts;
}

}  // namespace distlab::ui
