// SPDX-License-Identifier: AGPL-3.0-or-later
#include "staffapp.h"
#include "deskcontroller.h"
#include "tillcontroller.h"

#include <QCoreApplication>
#include <QQmlApplicationEngine>
#include <QUrl>
#include <memory>

namespace marquee::app {

QString staffMainUrl(const QString &role)
{
    // Qt 6.4 has no loadFromModule(); these are the module's own resource paths (see docs/app.md).
    return role == QLatin1String("manager") ? QStringLiteral("qrc:/qt/qml/Marquee/Ui/Desk/DeskMain.qml")
                                            : QStringLiteral("qrc:/qt/qml/Marquee/Ui/Till/TillMain.qml");
}

int runStaffApp(const AppConfig &config)
{
    std::unique_ptr<TillController> till;
    std::unique_ptr<DeskController> desk;
    if (config.role == QLatin1String("manager")) {
        desk = std::make_unique<DeskController>(config);
        DeskController::setInstance(desk.get());
    } else {
        till = std::make_unique<TillController>(config);
        TillController::setInstance(till.get());
    }
    int result = 1;
    {
        QQmlApplicationEngine engine;
        engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
        QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, QCoreApplication::instance(),
                         [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
        engine.load(QUrl(staffMainUrl(config.role)));
        if (!engine.rootObjects().isEmpty())
            result = QCoreApplication::exec();
    }
    TillController::setInstance(nullptr);
    DeskController::setInstance(nullptr);
    return result;
}

} // namespace marquee::app
