#pragma once
// The model builder: a list of dense layers (name, units, activation) that can be added, removed
// and reordered, the loss and the initialisation; a network diagram can be placed under it. For a
// split model, a column places each layer: its device (model_parallel) or its stage (pipeline,
// with a button that balances the stages), coloured by device.
#include <QWidget>

#include <vector>

#include <distlab/config/run_config.hpp>

class QComboBox;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTableWidgetItem;
class QVBoxLayout;

namespace distlab::ui {

class ModelPanel : public QWidget {
    Q_OBJECT

public:
    explicit ModelPanel(QWidget* parent = nullptr);

    /// Shows `model` (emits nothing).
    void setModel(const ModelConfig& model);
    /// The model as edited.
    ModelConfig model() const { return m_model; }
    /// Puts a widget (the network diagram) under the builder.
    void setDiagram(QWidget* diagram);
    /// Makes the output layer fit the data: `units` outputs and `loss` (emits edited() if it changed).
    void matchOutput(std::int64_t units, LossKind loss);

    int layerCount() const { return static_cast<int>(m_model.layers.size()); }
    /// The units spin box of layer `row` (for tests and keyboard users), or null.
    QSpinBox* unitsBox(int row) const;
    QComboBox* activationBox(int row) const;
    QTableWidget& table() const { return *m_table; }
    /// Selects layer `row`.
    void selectLayer(int row);
    /// Shows the placement column for a strategy of `kind`: the layers' devices for model_parallel,
    /// their stages (`stages` in all, on `devices` devices) for a pipeline; hides it for the others.
    /// A pipeline's stages that no longer fit are set back to automatic. `inputFeatures` (0:
    /// unknown) weighs the first layer when balancing.
    void setPlacement(StrategyKind kind, int stages, int devices, std::int64_t inputFeatures);
    /// The placement spin box of layer `row` (device index, or stage with -1 "auto"), or null.
    QSpinBox* placementBox(int row) const;
    QPushButton& balanceButton() const { return *m_balance; }

    /// Each layer's stage when `stages` stages are balanced by multiply-accumulates (the engine's
    /// balanceStages over in × units a dense layer; `inputFeatures` 0 counts the first layer as 1 wide).
    static std::vector<int> balancedStages(const ModelConfig& model, int stages, std::int64_t inputFeatures);

public slots:
    /// Inserts a hidden layer (relu, 8 units) above the selected layer, or above the output layer.
    void addLayer();
    void removeSelectedLayer();
    void moveSelectedLayer(int offset);

signals:
    void edited();

private:
    void rebuildTable();
    QSpinBox* placementEditor(int row);
    /// Tensor parallelism's split of layer `row`: "columns", "rows" or "whole", read-only.
    QTableWidgetItem* splitItem(int row) const;
    /// Sets every stage back to automatic where an edit left them against the config's rule.
    void keepStagesValid();
    int selectedRow() const;

    ModelConfig m_model;
    QTableWidget* m_table;
    QComboBox* m_loss;
    QComboBox* m_init;
    QPushButton* m_remove;
    QPushButton* m_balance;
    StrategyKind m_placementKind = StrategyKind::OneDevice;
    int m_stages = 1;
    int m_devices = 1;
    std::int64_t m_inputFeatures = 0;
    QVBoxLayout* m_layout;
};

}  // namespace distlab::ui
