// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

namespace marquee::app {

/**
 * @brief What the screens say about the link to the server (QML singleton Transport): while plain http to another
 * machine is allowed (--allow-insecure-http), every screen shows InsecureBanner with warning.
 */
class TransportStatus : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Transport)
    QML_SINGLETON
    /** @brief The app was started with --allow-insecure-http. */
    Q_PROPERTY(bool insecure READ insecure CONSTANT)
    /** @brief The banner's sentence. */
    Q_PROPERTY(QString warning READ warning CONSTANT)
public:
    explicit TransportStatus(QObject *parent = nullptr);

    bool insecure() const;
    QString warning() const;
};

} // namespace marquee::app
