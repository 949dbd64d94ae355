#include "panels/model_panel.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>

#include <distlab/config/run_limits.hpp>
#include <QVBoxLayout>

#include <distlab/config/run_config_json.hpp>
#include <distlab/config/layer_types.hpp>
#include <distlab/config/tensor_parallel_plan.hpp>

#include <distlab/distribute/pipeline_placement.hpp>

#include "panels/explanations.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

namespace {
constexpr Activation kActivations[] = {Activation::Linear, Activation::Relu, Activation::Tanh, Activation::Sigmoid, Activation::Gelu};
constexpr int kColumnName = 0;
constexpr int kColumnUnits = 1;
constexpr int kColumnActivation = 2;
constexpr int kColumnPlacement = 3;

bool splitsModel(StrategyKind kind) { return kind == StrategyKind::Pipeline || kind == StrategyKind::ModelParallel; }

/// Multiply-accumulates a sample of `layer` for inputs `width` wide, and its output width.
std::pair<double, std::int64_t> layerCost(const LayerConfig& layer, std::int64_t width) {
    if (layer.layers.empty()) return {static_cast<double>(width) * static_cast<double>(layer.units), layer.units};
    double cost = 0.0;  // a residual block: its inner layers, once a branch
    std::int64_t inner = width;
    for (const LayerConfig& part : layer.layers) {
        const auto [partCost, out] = layerCost(part, inner);
        cost += partCost;
        inner = out;
    }
    return {cost * static_cast<double>(layer.branches), width};
}
}  // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName(QStringLiteral("layerTable"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Units"), tr("Activation"), tr("Device")});
    m_table->horizontalHeader()->setSectionResizeMode(kColumnPlacement, QHeaderView::Fixed);
    m_table->setColumnWidth(kColumnPlacement, 64);
    m_table->setColumnHidden(kColumnPlacement, true);
    m_table->horizontalHeader()->setSectionResizeMode(kColumnName, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(kColumnUnits, QHeaderView::Fixed);
    m_table->horizontalHeader()->setSectionResizeMode(kColumnActivation, QHeaderView::Fixed);
    m_table->setColumnWidth(kColumnUnits, 76);
    m_table->setColumnWidth(kColumnActivation, 96);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setMinimumHeight(130);
    setExplainKey(m_table, QStringLiteral("model.layers"));

    auto* add = new QPushButton(tr("Add"), this);
    add->setToolTip(tr("Add a hidden layer above the selected one"));
    add->setObjectName(QStringLiteral("addLayerButton"));
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setObjectName(QStringLiteral("removeLayerButton"));
    auto* up = new QPushButton(tr("Up"), this);
    auto* down = new QPushButton(tr("Down"), this);
    for (QPushButton* button : {add, m_remove, up, down}) setExplainKey(button, QStringLiteral("model.layers"));
    m_balance = new QPushButton(tr("Balance stages"), this);
    m_balance->setObjectName(QStringLiteral("balanceStagesButton"));
    m_balance->setToolTip(
        tr("Give each stage layers of about equal work (multiply-accumulates), as the engine does when no "
           "layer names its stage"));
    m_balance->setVisible(false);
    setExplainKey(m_balance, QStringLiteral("strategy.stages"));
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(add);
    buttons->addWidget(m_remove);
    buttons->addWidget(up);
    buttons->addWidget(down);
    buttons->addWidget(m_balance);

    m_loss = new QComboBox(this);
    m_loss->setObjectName(QStringLiteral("lossBox"));
    m_loss->addItem(QStringLiteral("softmax_cross_entropy"), static_cast<int>(LossKind::SoftmaxCrossEntropy));
    m_loss->addItem(QStringLiteral("mse"), static_cast<int>(LossKind::MeanSquaredError));
    setExplainKey(m_loss, QStringLiteral("model.loss"));
    m_init = new QComboBox(this);
    for (InitKind init : {InitKind::GlorotUniform, InitKind::HeNormal, InitKind::Zeros}) {
        m_init->addItem(QString::fromLatin1(configName(init)), static_cast<int>(init));
    }
    setExplainKey(m_init, QStringLiteral("model.init"));
    auto* form = new QFormLayout();
    form->addRow(tr("Loss"), m_loss);
    form->addRow(tr("Initialisation"), m_init);

    m_layout = new QVBoxLayout(this);
    m_layout->addWidget(m_table, 1);
    m_layout->addLayout(buttons);
    m_layout->addLayout(form);

    connect(add, &QPushButton::clicked, this, &ModelPanel::addLayer);
    connect(m_remove, &QPushButton::clicked, this, &ModelPanel::removeSelectedLayer);
    connect(up, &QPushButton::clicked, this, [this] { moveSelectedLayer(-1); });
    connect(down, &QPushButton::clicked, this, [this] { moveSelectedLayer(1); });
    connect(m_balance, &QPushButton::clicked, this, [this] {
        if (m_placementKind != StrategyKind::Pipeline || m_stages > layerCount()) return;
        const std::vector<int> stages = balancedStages(m_model, m_stages, m_inputFeatures);
        for (std::size_t i = 0; i < stages.size(); ++i) m_model.layers[i].stage = stages[i];
        rebuildTable();
        emit edited();
    });
    connect(m_loss, &QComboBox::currentIndexChanged, this, [this] {
        m_model.loss = static_cast<LossKind>(m_loss->currentData().toInt());
        emit edited();
    });
    connect(m_init, &QComboBox::currentIndexChanged, this, [this] {
        m_model.init = static_cast<InitKind>(m_init->currentData().toInt());
        emit edited();
    });
}

void ModelPanel::setDiagram(QWidget* diagram) { m_layout->insertWidget(0, diagram, 2); }

void ModelPanel::setModel(const ModelConfig& model) {
    m_model = model;
    const QSignalBlocker lossBlocker(m_loss);
    const QSignalBlocker initBlocker(m_init);
    m_loss->setCurrentIndex(m_loss->findData(static_cast<int>(model.loss)));
    m_init->setCurrentIndex(m_init->findData(static_cast<int>(model.init)));
    rebuildTable();
}

void ModelPanel::rebuildTable() {
    const int selected = selectedRow();
    const QSignalBlocker blocker(m_table);
    m_table->setRowCount(static_cast<int>(m_model.layers.size()));
    QStringList rowNames;
    for (int row = 0; row < static_cast<int>(m_model.layers.size()); ++row) {
        const LayerConfig& layer = m_model.layers[static_cast<std::size_t>(row)];
        const bool output = row + 1 == static_cast<int>(m_model.layers.size());
        rowNames.append(output ? tr("output") : tr("hidden %1").arg(row + 1));

        auto* name = new QLineEdit(QString::fromStdString(layer.name));
        name->setPlaceholderText(QStringLiteral("%1_%2").arg(QString::fromStdString(layer.type)).arg(row));
        name->setFrame(false);
        connect(name, &QLineEdit::editingFinished, this, [this, row, name] {
            if (row >= layerCount() || m_model.layers[static_cast<std::size_t>(row)].name == name->text().toStdString()) return;
            m_model.layers[static_cast<std::size_t>(row)].name = name->text().toStdString();
            emit edited();
        });
        m_table->setCellWidget(row, kColumnName, name);

        auto* units = new QSpinBox();
        units->setRange(1, static_cast<int>(run_limits::kMaxUnits));  // the engine's bound: a valid config is never clamped
        units->setValue(static_cast<int>(std::min<std::int64_t>(layer.units, run_limits::kMaxUnits)));
        units->setFrame(false);
        units->setAccessibleName(tr("Units of layer %1").arg(row + 1));
        setExplainKey(units, QStringLiteral("model.units"));
        connect(units, &QSpinBox::valueChanged, this, [this, row](int value) {
            if (row >= layerCount()) return;
            m_model.layers[static_cast<std::size_t>(row)].units = value;
            emit edited();
        });
        m_table->setCellWidget(row, kColumnUnits, units);

        auto* activation = new QComboBox();
        for (Activation kind : kActivations) activation->addItem(QString::fromLatin1(configName(kind)), static_cast<int>(kind));
        activation->setCurrentIndex(activation->findData(static_cast<int>(layer.activation)));
        activation->setFrame(false);
        setExplainKey(activation, QStringLiteral("model.activation"));
        connect(activation, &QComboBox::currentIndexChanged, this, [this, row, activation] {
            if (row >= layerCount()) return;
            m_model.layers[static_cast<std::size_t>(row)].activation = static_cast<Activation>(activation->currentData().toInt());
            emit edited();
        });
        m_table->setCellWidget(row, kColumnActivation, activation);
        if (const LayerType* type = findLayerType(layer.type); type == nullptr || !type->takesUnits) {
            // Only layers with units are edited here; other kinds (residual blocks) come from config files.
            const QSignalBlocker unitsBlocker(units);
            units->setEnabled(false);
            activation->setEnabled(false);
            units->setSpecialValueText(QString::fromStdString(layer.type));
            units->setMinimum(0);
            units->setValue(0);
            units->setToolTip(tr("A %1 layer: edit it in the run config file").arg(QString::fromStdString(layer.type)));
        }
        if (splitsModel(m_placementKind)) m_table->setCellWidget(row, kColumnPlacement, placementEditor(row));
        if (m_placementKind == StrategyKind::TensorParallel) m_table->setItem(row, kColumnPlacement, splitItem(row));
    }
    m_table->setVerticalHeaderLabels(rowNames);
    m_remove->setEnabled(m_model.layers.size() > 1);
    if (selected >= 0) selectLayer(std::min(selected, layerCount() - 1));
}

QTableWidgetItem* ModelPanel::splitItem(int row) const {
    // How tensor parallelism splits the layer (the pairing alone: tp's divisibility is the Strategy
    // page's to say); read-only, the pairs follow from the layers' order.
    const auto plan = planTensorParallel(m_model, m_inputFeatures, 1);
    QString text = tr("—");
    if (plan) {
        switch ((*plan)[static_cast<std::size_t>(row)].role) {
            case TensorParallelRole::Column:
                text = tr("columns");
                break;
            case TensorParallelRole::Row:
                text = tr("rows");
                break;
            case TensorParallelRole::Replicated:
                text = tr("whole");
                break;
        }
    }
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled);
    item->setToolTip(plan ? tr("Tensor parallelism splits this layer's kernel by %1").arg(text)
                          : QString::fromStdString(plan.error().message));
    return item;
}

QSpinBox* ModelPanel::placementEditor(int row) {
    const LayerConfig& layer = m_model.layers[static_cast<std::size_t>(row)];
    auto* box = new QSpinBox();
    box->setFrame(false);
    const bool pipeline = m_placementKind == StrategyKind::Pipeline;
    int device = 0;
    if (pipeline) {
        box->setRange(-1, m_stages - 1);
        box->setSpecialValueText(tr("auto"));
        box->setPrefix(tr("stage "));
        box->setValue(static_cast<int>(layer.stage));
        box->setAccessibleName(tr("Stage of layer %1").arg(row + 1));
        setExplainKey(box, QStringLiteral("strategy.stages"));
        device = layer.stage >= 0 ? static_cast<int>(layer.stage) % std::max(1, m_devices) : -1;
    } else {
        box->setRange(0, static_cast<int>(run_limits::kMaxPipelineStages) - 1);
        box->setPrefix(QStringLiteral("cpu:"));
        box->setValue(layer.device ? layer.device->index : 0);
        box->setAccessibleName(tr("Device of layer %1").arg(row + 1));
        setExplainKey(box, QStringLiteral("model.device"));
        device = box->value();
    }
    // A colour per device, as the Schedule view's lanes and the set-up's devices.
    if (device >= 0) box->setStyleSheet(QStringLiteral("QSpinBox { background: %1; }").arg(replicaColor(device).lighter(160).name()));
    connect(box, &QSpinBox::valueChanged, this, [this, row, pipeline](int value) {
        if (row >= layerCount()) return;
        LayerConfig& edited = m_model.layers[static_cast<std::size_t>(row)];
        if (pipeline) {
            // Stages go all or none (the config's rule): naming one names the others, balanced.
            if (value >= 0 && edited.stage < 0 && m_stages <= layerCount()) {
                const std::vector<int> stages = balancedStages(m_model, m_stages, m_inputFeatures);
                for (std::size_t i = 0; i < stages.size(); ++i) m_model.layers[i].stage = stages[i];
            }
            if (value < 0)
                for (LayerConfig& each : m_model.layers) each.stage = -1;
            else
                edited.stage = value;
        } else {
            edited.device = DeviceName{DeviceName::Kind::Cpu, value};
        }
        QMetaObject::invokeMethod(
            this, [this] { rebuildTable(); }, Qt::QueuedConnection);  // not inside the box's own signal
        emit this->edited();
    });
    return box;
}

std::vector<int> ModelPanel::balancedStages(const ModelConfig& model, int stages, std::int64_t inputFeatures) {
    std::vector<double> costs;
    std::int64_t width = std::max<std::int64_t>(1, inputFeatures);
    for (const LayerConfig& layer : model.layers) {
        const auto [cost, out] = layerCost(layer, width);
        costs.push_back(cost);
        width = out;
    }
    return balanceStages(costs, stages);
}

void ModelPanel::keepStagesValid() {
    // The config's rule: all layers name their stage or none; from 0 up by at most one; the last in
    // the last stage. A list an edit broke goes back to automatic balancing.
    bool valid = true;
    std::int64_t previous = -1;
    const bool named = !m_model.layers.empty() && m_model.layers.front().stage >= 0;
    for (const LayerConfig& layer : m_model.layers) {
        valid = valid && (layer.stage >= 0) == named && (!named || layer.stage == previous || layer.stage == previous + 1);
        previous = layer.stage;
    }
    if (named && previous != m_stages - 1) valid = false;
    if (!valid)
        for (LayerConfig& layer : m_model.layers) layer.stage = -1;
}

void ModelPanel::setPlacement(StrategyKind kind, int stages, int devices, std::int64_t inputFeatures) {
    const bool changed = kind != m_placementKind || stages != m_stages || devices != m_devices;
    m_placementKind = kind;
    m_stages = std::max(1, stages);
    m_devices = std::max(1, devices);
    m_inputFeatures = inputFeatures;
    const bool split = splitsModel(kind);
    m_table->setColumnHidden(kColumnPlacement, !split && kind != StrategyKind::TensorParallel);
    m_table->setHorizontalHeaderItem(kColumnPlacement, new QTableWidgetItem(kind == StrategyKind::Pipeline         ? tr("Stage")
                                                                            : kind == StrategyKind::TensorParallel ? tr("Split")
                                                                                                                   : tr("Device")));
    m_balance->setVisible(kind == StrategyKind::Pipeline);
    const ModelConfig before = m_model;
    if (kind == StrategyKind::Pipeline) keepStagesValid();  // named for another stage count: balanced by the engine again
    const bool reset = !(before == m_model);
    if (changed || reset) rebuildTable();
    if (reset) emit edited();
}

QSpinBox* ModelPanel::placementBox(int row) const { return qobject_cast<QSpinBox*>(m_table->cellWidget(row, kColumnPlacement)); }

QSpinBox* ModelPanel::unitsBox(int row) const { return qobject_cast<QSpinBox*>(m_table->cellWidget(row, kColumnUnits)); }

QComboBox* ModelPanel::activationBox(int row) const { return qobject_cast<QComboBox*>(m_table->cellWidget(row, kColumnActivation)); }

int ModelPanel::selectedRow() const {
    const auto rows = m_table->selectionModel() ? m_table->selectionModel()->selectedRows() : QModelIndexList{};
    return rows.isEmpty() ? -1 : rows.front().row();
}

void ModelPanel::selectLayer(int row) { m_table->selectRow(row); }

void ModelPanel::addLayer() {
    int row = selectedRow();
    if (row < 0) row = std::max(0, layerCount() - 1);
    LayerConfig layer;  // a dense layer, the default type
    layer.units = 8;
    layer.activation = Activation::Relu;
    if (!m_model.layers.empty()) {  // on its neighbour's device and stage
        layer.device = m_model.layers[static_cast<std::size_t>(row)].device;
        layer.stage = m_model.layers[static_cast<std::size_t>(row)].stage;
    }
    m_model.layers.insert(m_model.layers.begin() + row, layer);
    keepStagesValid();
    rebuildTable();
    selectLayer(row);
    emit edited();
}

void ModelPanel::removeSelectedLayer() {
    const int row = selectedRow();
    if (row < 0 || layerCount() <= 1) return;
    m_model.layers.erase(m_model.layers.begin() + row);
    keepStagesValid();
    rebuildTable();
    emit edited();
}

void ModelPanel::moveSelectedLayer(int offset) {
    const int row = selectedRow();
    const int target = row + offset;
    if (row < 0 || target < 0 || target >= layerCount()) return;
    std::swap(m_model.layers[static_cast<std::size_t>(row)], m_model.layers[static_cast<std::size_t>(target)]);
    std::swap(m_model.layers[static_cast<std::size_t>(row)].stage,
              m_model.layers[static_cast<std::size_t>(target)].stage);  // stages stay in place
    keepStagesValid();
    rebuildTable();
    selectLayer(target);
    emit edited();
}

void ModelPanel::matchOutput(std::int64_t units, LossKind loss) {
    if (m_model.layers.empty() || units <= 0) return;
    LayerConfig& output = m_model.layers.back();
    if (output.units == units && m_model.loss == loss) return;
    output.units = units;
    output.activation = Activation::Linear;
    m_model.loss = loss;
    setModel(m_model);
    emit edited();
}

}  // namespace distlab::ui
