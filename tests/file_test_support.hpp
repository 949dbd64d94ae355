#pragma once
// File helpers shared by the tests that check how DistLab reads and writes files: whole-file read
// and write, a folder's entries (hidden and special files included), FIFO detection, and a
// file-size limit that makes writes fail half-way like a full disk (EFBIG), even for root.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <string>

inline std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }

inline QByteArray readAll(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return file.readAll();
}

inline void writeRaw(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

/// Every entry of `folder` by name, hidden files and FIFOs too (to prove nothing is left behind).
inline QStringList entriesOf(const QString& folder) {
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

inline bool isFifo(const QString& path) {
    struct stat info {};
    return ::lstat(local(path).c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
}

/// While alive, files this process writes may not grow past `bytes`: writes fail with EFBIG as on
/// a full disk (SIGXFSZ is ignored so the process is not killed). Restores both on destruction.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) : m_oldHandler(::signal(SIGXFSZ, SIG_IGN)) {
        ::getrlimit(RLIMIT_FSIZE, &m_saved);
        rlimit small = m_saved;
        small.rlim_cur = bytes;
        m_active = ::setrlimit(RLIMIT_FSIZE, &small) == 0;
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &m_saved);
        ::signal(SIGXFSZ, m_oldHandler);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    bool active() const { return m_active; }

private:
    rlimit m_saved{};
    sighandler_t m_oldHandler;
    bool m_active = false;
};
