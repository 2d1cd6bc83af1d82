import MailwakeHTTPServer

extension OutpostAPI { func addManagementRoutes(_ router: inout Router) {} }
