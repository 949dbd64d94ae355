#include "panels/data_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "panels/explanations.hpp"

namespace distlab::ui {

namespace {
constexpr DataSource kSources[] = {DataSource::Synthetic, DataSource::Csv, DataSource::Idx, DataSource::FashionMnist, DataSource::Random};
constexpr SyntheticKind kKinds[] = {SyntheticKind::Circle,          SyntheticKind::Xor,
                                    SyntheticKind::Gauss,           SyntheticKind::Spiral,
                                    SyntheticKind::RegressionPlane, SyntheticKind::RegressionGauss};

QDoubleSpinBox* fractionBox(QWidget* parent, double low, double high, double step) {
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(low, high);
    box->setSingleStep(step);
    box->setDecimals(3);
    return box;
}

// A spin box shows a rounded value; keep the exact original when the user left it alone.
double keptOrEdited(double original, const QDoubleSpinBox* box) {
    const double resolution = 0.5 * std::pow(10.0, -box->decimals());
    return std::abs(box->value() - original) <= resolution ? original : box->value();
}

// A synthetic set's parameters have no meaning for files: hide nothing, but keep them intact.
std::string text(const QLineEdit* field) { return field->text().trimmed().toStdString(); }
}  // namespace

DataPanel::DataPanel(QWidget* parent) : QWidget(parent) {
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("dataSourceBox"));
    for (DataSource source : kSources) m_source->addItem(QString::fromLatin1(configName(source)), static_cast<int>(source));
    setExplainKey(m_source, QStringLiteral("data.source"));
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(buildSyntheticPage());
    m_pages->addWidget(buildCsvPage());
    m_pages->addWidget(buildIdxPage());
    m_pages->addWidget(buildFashionPage());
    m_pages->addWidget(buildRandomPage());

    m_batch = new QSpinBox(this);
    m_batch->setObjectName(QStringLiteral("globalBatchBox"));
    m_batch->setRange(1, 1 << 20);
    setExplainKey(m_batch, QStringLiteral("data.global_batch_size"));
    m_shuffle = new QCheckBox(tr("Shuffle every epoch"), this);
    setExplainKey(m_shuffle, QStringLiteral("data.shuffle"));
    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("seedBox"));
    m_seed->setRange(0, 2147483647);
    setExplainKey(m_seed, QStringLiteral("data.seed"));
    auto* newSeed = new QPushButton(tr("New seed"), this);
    setExplainKey(newSeed, QStringLiteral("data.seed"));
    auto* seedRow = new QHBoxLayout();
    seedRow->addWidget(m_seed, 1);
    seedRow->addWidget(newSeed);
    auto* preset = new QPushButton(tr("Fashion-MNIST preset"), this);
    preset->setToolTip(tr("Fashion-MNIST with a 128-unit relu layer and 10 outputs, global batch 256"));

    auto* form = new QFormLayout();
    form->addRow(tr("Source"), m_source);
    auto* common = new QFormLayout();
    common->addRow(tr("Global batch"), m_batch);
    common->addRow(QString(), m_shuffle);
    common->addRow(tr("Seed"), seedRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_pages);
    layout->addLayout(common);
    layout->addWidget(preset);
    layout->addStretch(1);

    connect(m_source, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_pages->setCurrentIndex(index);
        emit edited();
    });
    connect(newSeed, &QPushButton::clicked, this,
            [this] { m_seed->setValue(static_cast<int>(QRandomGenerator::global()->bounded(1, 2147483647))); });
    connect(preset, &QPushButton::clicked, this, &DataPanel::fashionPresetRequested);
    connect(m_batch, &QSpinBox::valueChanged, this, &DataPanel::edited);
    connect(m_shuffle, &QCheckBox::toggled, this, &DataPanel::edited);
    connect(m_seed, &QSpinBox::valueChanged, this, &DataPanel::edited);
}

QWidget* DataPanel::buildSyntheticPage() {
    auto* page = new QWidget(this);
    m_kind = new QComboBox(page);
    m_kind->setObjectName(QStringLiteral("syntheticKindBox"));
    for (SyntheticKind kind : kKinds) m_kind->addItem(QString::fromLatin1(configName(kind)), static_cast<int>(kind));
    setExplainKey(m_kind, QStringLiteral("data.kind"));
    m_samples = new QSpinBox(page);
    m_samples->setRange(1, 1000000);
    setExplainKey(m_samples, QStringLiteral("data.samples"));
    m_noise = fractionBox(page, 0.0, 1.0, 0.05);
    setExplainKey(m_noise, QStringLiteral("data.noise"));
    m_trainFraction = fractionBox(page, 0.01, 1.0, 0.05);
    setExplainKey(m_trainFraction, QStringLiteral("data.train_fraction"));
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Set"), m_kind);
    form->addRow(tr("Samples"), m_samples);
    form->addRow(tr("Noise"), m_noise);
    form->addRow(tr("Train fraction"), m_trainFraction);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &DataPanel::edited);
    connect(m_samples, &QSpinBox::valueChanged, this, &DataPanel::edited);
    connect(m_noise, &QDoubleSpinBox::valueChanged, this, &DataPanel::edited);
    connect(m_trainFraction, &QDoubleSpinBox::valueChanged, this, &DataPanel::edited);
    return page;
}

QLineEdit* DataPanel::fileField(QWidget* parent, const QString& caption) {
    auto* field = new QLineEdit(parent);
    field->setPlaceholderText(tr("path (relative to the config file)"));
    setExplainKey(field, QStringLiteral("data.files"));
    auto* browse = new QToolButton(parent);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose a file"));
    connect(browse, &QToolButton::clicked, this, [this, field, caption] {
        const QString path = QFileDialog::getOpenFileName(this, caption, field->text());
        if (path.isEmpty()) return;
        field->setText(path);
        emit edited();
    });
    connect(field, &QLineEdit::editingFinished, this, &DataPanel::edited);
    field->setProperty("distlabBrowse", QVariant::fromValue(static_cast<QObject*>(browse)));
    return field;
}

QWidget* DataPanel::buildCsvPage() {
    auto* page = new QWidget(this);
    m_csvPath = fileField(page, tr("Training CSV"));
    m_csvTestPath = fileField(page, tr("Test CSV"));
    m_labelColumn = new QSpinBox(page);
    m_labelColumn->setRange(-10000, 10000);
    setExplainKey(m_labelColumn, QStringLiteral("data.label_column"));
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    auto row = [page](QLineEdit* field) {
        auto* box = new QHBoxLayout();
        box->addWidget(field, 1);
        box->addWidget(qobject_cast<QWidget*>(field->property("distlabBrowse").value<QObject*>()));
        Q_UNUSED(page);
        return box;
    };
    form->addRow(tr("Train file"), row(m_csvPath));
    form->addRow(tr("Test file"), row(m_csvTestPath));
    form->addRow(tr("Label column"), m_labelColumn);
    connect(m_labelColumn, &QSpinBox::valueChanged, this, &DataPanel::edited);
    return page;
}

QWidget* DataPanel::buildIdxPage() {
    auto* page = new QWidget(this);
    m_images = fileField(page, tr("Training images (IDX)"));
    m_labels = fileField(page, tr("Training labels (IDX)"));
    m_testImages = fileField(page, tr("Test images (IDX)"));
    m_testLabels = fileField(page, tr("Test labels (IDX)"));
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    for (auto [label, field] : {std::pair{tr("Images"), m_images}, std::pair{tr("Labels"), m_labels},
                                std::pair{tr("Test images"), m_testImages}, std::pair{tr("Test labels"), m_testLabels}}) {
        auto* box = new QHBoxLayout();
        box->addWidget(field, 1);
        box->addWidget(qobject_cast<QWidget*>(field->property("distlabBrowse").value<QObject*>()));
        form->addRow(label, box);
    }
    return page;
}

QWidget* DataPanel::buildFashionPage() {
    auto* label = new QLabel(tr("The installed Fashion-MNIST set: 60,000 training and 10,000 test images of "
                                "28×28 pixels (784 inputs), 10 classes of clothing."),
                             this);
    label->setWordWrap(true);
    setExplainKey(label, QStringLiteral("data.source"));
    return label;
}

QWidget* DataPanel::buildRandomPage() {
    auto* page = new QWidget(this);
    m_randomFeatures = new QSpinBox(page);
    m_randomFeatures->setRange(1, 100000);
    m_randomClasses = new QSpinBox(page);
    m_randomClasses->setRange(1, 100000);
    m_randomOutputs = new QSpinBox(page);
    m_randomOutputs->setRange(0, 100000);
    m_randomOutputs->setSpecialValueText(tr("none (classes)"));
    m_randomSamples = new QSpinBox(page);
    m_randomSamples->setRange(1, 10000000);
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Features"), m_randomFeatures);
    form->addRow(tr("Classes"), m_randomClasses);
    form->addRow(tr("Regression outputs"), m_randomOutputs);
    form->addRow(tr("Samples"), m_randomSamples);
    for (QSpinBox* box : {m_randomFeatures, m_randomClasses, m_randomOutputs, m_randomSamples}) {
        setExplainKey(box, QStringLiteral("data.source"));
        connect(box, &QSpinBox::valueChanged, this, &DataPanel::edited);
    }
    return page;
}

void DataPanel::setConfig(const RunConfig& config) {
    m_shown = config;
    const DataConfig& source = config.data;
    const QList<QWidget*> boxes = findChildren<QWidget*>();
    for (QWidget* widget : boxes) widget->blockSignals(true);
    m_source->setCurrentIndex(m_source->findData(static_cast<int>(source.source)));
    m_pages->setCurrentIndex(m_source->currentIndex());
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(source.kind)));
    m_samples->setValue(static_cast<int>(std::min<std::int64_t>(source.samples, m_samples->maximum())));
    m_noise->setValue(source.noise);
    m_trainFraction->setValue(source.trainFraction);
    m_csvPath->setText(QString::fromStdString(source.path));
    m_csvTestPath->setText(QString::fromStdString(source.testPath));
    m_labelColumn->setValue(static_cast<int>(source.labelColumn));
    m_images->setText(QString::fromStdString(source.images));
    m_labels->setText(QString::fromStdString(source.labels));
    m_testImages->setText(QString::fromStdString(source.testImages));
    m_testLabels->setText(QString::fromStdString(source.testLabels));
    m_randomFeatures->setValue(static_cast<int>(source.features));
    m_randomClasses->setValue(static_cast<int>(source.classes));
    m_randomOutputs->setValue(static_cast<int>(source.outputs));
    m_randomSamples->setValue(static_cast<int>(std::min<std::int64_t>(source.samples, m_randomSamples->maximum())));
    m_batch->setValue(static_cast<int>(std::min<std::int64_t>(source.globalBatchSize, m_batch->maximum())));
    m_shuffle->setChecked(source.shuffle);
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(config.seed, 2147483647u)));
    for (QWidget* widget : boxes) widget->blockSignals(false);
}

void DataPanel::applyTo(RunConfig& config) const {
    DataConfig& target = config.data;
    const DataConfig& shown = m_shown.data;
    target.source = static_cast<DataSource>(m_source->currentData().toInt());
    target.kind = static_cast<SyntheticKind>(m_kind->currentData().toInt());
    // Synthetic and random sets share data.samples: take it from the page on show.
    target.samples = target.source == DataSource::Random ? m_randomSamples->value() : m_samples->value();
    target.noise = keptOrEdited(shown.noise, m_noise);
    target.trainFraction = keptOrEdited(shown.trainFraction, m_trainFraction);
    target.path = text(m_csvPath);
    target.testPath = text(m_csvTestPath);
    target.labelColumn = m_labelColumn->value();
    target.images = text(m_images);
    target.labels = text(m_labels);
    target.testImages = text(m_testImages);
    target.testLabels = text(m_testLabels);
    target.features = m_randomFeatures->value();
    target.classes = m_randomClasses->value();
    target.outputs = m_randomOutputs->value();
    target.shuffle = m_shuffle->isChecked();
    target.globalBatchSize = m_batch->value();
    const auto seed = static_cast<std::uint64_t>(m_seed->value());
    config.seed = seed == std::min<std::uint64_t>(m_shown.seed, 2147483647u) ? m_shown.seed : seed;
}

}  // namespace distlab::ui
