// SPDX-License-Identifier: AGPL-3.0-or-later
#include <QQmlEngine>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(Marquee_AppPlugin)
Q_IMPORT_QML_PLUGIN(Marquee_UiPlugin)

class Setup : public QObject
{
    Q_OBJECT
public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine *engine) { engine->addImportPath(QStringLiteral("qrc:/qt/qml")); }
};

QUICK_TEST_MAIN_WITH_SETUP(marquee_qml, Setup)

#include "qmltestmain.moc"
