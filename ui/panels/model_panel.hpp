#pragma once
// The model builder: a list of dense layers (name, units, activation) that can be added, removed
// and reordered, the loss and the initialisation; a network diagram can be placed under it.
#include <QWidget>

#include <vector>

#include <distlab/config/run_config.hpp>

class QComboBox;
class QPushButton;
class QSpinBox;
class QTableWidget;
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

public slots:
    /// Inserts a hidden layer (relu, 8 units) above the selected layer, or above the output layer.
    void addLayer();
    void removeSelectedLayer();
    void moveSelectedLayer(int offset);

signals:
    void edited();

private:
    void rebuildTable();
    int selectedRow() const;

    ModelConfig m_model;
    QTableWidget* m_table;
    QComboBox* m_loss;
    QComboBox* m_init;
    QPushButton* m_remove;
    QVBoxLayout* m_layout;
};

}  // namespace distlab::ui
