// SPDX-License-Identifier: AGPL-3.0-or-later
#include "logging.h"

Q_LOGGING_CATEGORY(lcHttp, "marquee.http")
Q_LOGGING_CATEGORY(lcStore, "marquee.store")
Q_LOGGING_CATEGORY(lcEmbedded, "marquee.store.embedded")
Q_LOGGING_CATEGORY(lcJobs, "marquee.jobs")
Q_LOGGING_CATEGORY(lcRelay, "marquee.relay")
Q_LOGGING_CATEGORY(lcQueue, "marquee.queue")
Q_LOGGING_CATEGORY(lcPayments, "marquee.payments")

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

namespace marquee {

namespace {
thread_local QByteArray t_requestId;
LogFormat g_format = LogFormat::Text;

const char *levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return "debug";
    case QtInfoMsg:
        return "info";
    case QtWarningMsg:
        return "warning";
    case QtCriticalMsg:
        return "critical";
    case QtFatalMsg:
        return "fatal";
    }
    return "info";
}

void writeLine(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    QByteArray line;
    if (g_format == LogFormat::Json) {
        QJsonObject object{{QStringLiteral("time"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                           {QStringLiteral("level"), QLatin1String(levelName(type))},
                           {QStringLiteral("category"), QLatin1String(context.category ? context.category : "default")},
                           {QStringLiteral("message"), message}};
        if (!t_requestId.isEmpty())
            object.insert(QStringLiteral("request_id"), QString::fromLatin1(t_requestId));
        line = QJsonDocument(object).toJson(QJsonDocument::Compact); // escapes control characters: one line each
    } else {
        line = qFormatLogMessage(type, context, message).toUtf8();
        if (!t_requestId.isEmpty())
            line += " request_id=" + t_requestId;
    }
    line += '\n';
    // One write per line, so that lines of several threads never interleave.
    std::fwrite(line.constData(), 1, size_t(line.size()), stderr);
    std::fflush(stderr);
    if (type == QtFatalMsg)
        std::abort();
}
} // namespace

void installLogFormat(LogFormat format)
{
    g_format = format;
    qInstallMessageHandler(writeLine);
}

RequestIdScope::RequestIdScope(const QByteArray &requestId)
    : m_previous(std::move(t_requestId))
{
    t_requestId = requestId;
}

RequestIdScope::~RequestIdScope()
{
    t_requestId = std::move(m_previous);
}

QByteArray currentRequestId()
{
    return t_requestId;
}

} // namespace marquee
