#pragma once
// The data set-up: the source (synthetic 2-D sets, CSV, IDX, Fashion-MNIST, random), its
// parameters and files, the global batch size, shuffling and the run's seed.
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace distlab::ui {

class DataPanel : public QWidget {
    Q_OBJECT

public:
    explicit DataPanel(QWidget* parent = nullptr);

    /// Shows the data part of `config` and its seed (emits nothing).
    void setConfig(const RunConfig& config);
    /// Writes the edited fields into `config` (values the user did not touch keep their exact value).
    void applyTo(RunConfig& config) const;

    QComboBox& sourceBox() const { return *m_source; }
    QSpinBox& batchBox() const { return *m_batch; }

signals:
    void edited();
    /// The user asked for the Fashion-MNIST preset (data and a matching model).
    void fashionPresetRequested();

private:
    QWidget* buildSyntheticPage();
    QWidget* buildCsvPage();
    QWidget* buildIdxPage();
    QWidget* buildFashionPage();
    QWidget* buildRandomPage();
    QLineEdit* fileField(QWidget* parent, const QString& caption);

    RunConfig m_shown;  // what setConfig showed, for exact round trips
    QComboBox* m_source;
    QStackedWidget* m_pages;
    QComboBox* m_kind;
    QSpinBox* m_samples;
    QDoubleSpinBox* m_noise;
    QDoubleSpinBox* m_trainFraction;
    QLineEdit* m_csvPath;
    QLineEdit* m_csvTestPath;
    QSpinBox* m_labelColumn;
    QLineEdit* m_images;
    QLineEdit* m_labels;
    QLineEdit* m_testImages;
    QLineEdit* m_testLabels;
    QSpinBox* m_randomFeatures;
    QSpinBox* m_randomClasses;
    QSpinBox* m_randomOutputs;
    QSpinBox* m_randomSamples;
    QSpinBox* m_batch;
    QCheckBox* m_shuffle;
    QSpinBox* m_seed;
};

}  // namespace distlab::ui
